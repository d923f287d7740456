import { Writable } from 'node:stream';
import { accessLogger, createLogger } from './logger';

/** A destination that keeps every line written to it. */
function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logger', () => {
  it('when an object with secrets is logged by the process logger or a request child, then they are redacted', () => {
    const out = capture();
    const logger = createLogger('test', 'info', out.stream);
    logger.info(
      { password: 'p1', input: { password: 'p2' }, headers: { authorization: 'Bearer t' } },
      'base',
    );
    logger.child({ requestId: 'r1' }).info({ refreshToken: 'rt', user: { apiKey: 'ak' } }, 'child');
    const [base, child] = out.lines();
    expect(base).toMatchObject({
      password: '[redacted]',
      input: { password: '[redacted]' },
      headers: { authorization: '[redacted]' },
    });
    expect(child).toMatchObject({
      requestId: 'r1',
      refreshToken: '[redacted]',
      user: { apiKey: '[redacted]' },
    });
  });

  it('when a request line is written through the access logger, then its fields appear as given and the base still redacts', () => {
    const out = capture();
    const logger = createLogger('test', 'info', out.stream);
    const access = accessLogger(logger);
    access.info(
      { requestId: 'r2', method: 'GET', path: '/users/1', status: 200, durationMs: 1.5 },
      'request completed',
    );
    logger.info({ password: 'p3' }, 'after');
    const [line, after] = out.lines();
    expect(line).toMatchObject({
      service: 'test',
      requestId: 'r2',
      method: 'GET',
      path: '/users/1',
      status: 200,
      msg: 'request completed',
    });
    expect(after).toMatchObject({ password: '[redacted]' });
  });
});
