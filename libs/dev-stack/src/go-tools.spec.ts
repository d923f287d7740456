/** What a first-run build of a Go tool (FerretDB under `npm start`) tells the user while it runs. */
import { buildingMessage, reportProgress } from './go-tools';
import { FERRETDB } from './infrastructure';

describe('Go tool build messages', () => {
  it('when FerretDB is built on a first run, then the announcement says what, from where, and how long, and reads like no failure', () => {
    const message = buildingMessage(FERRETDB, '/cache/api-platform/ferretdb-v1.24.2');
    expect(message).toBe(
      'building FerretDB v1.24.2 from the Go module proxy into /cache/api-platform/ferretdb-v1.24.2 (first run only, about a minute)...',
    );
    expect(message).not.toMatch(/did not|fail|error|not work/i);
  });

  describe('progress', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('when a build runs, then a progress line with the step and the time so far comes every interval until it ends', () => {
      const lines: string[] = [];
      let step = 'downloading the module';
      const stop = reportProgress(
        (line) => lines.push(line),
        () => `still building FerretDB v1.24.2 (${step})`,
        10_000,
      );
      jest.advanceTimersByTime(10_000);
      step = 'compiling';
      jest.advanceTimersByTime(20_000);
      stop();
      jest.advanceTimersByTime(60_000);
      expect(lines).toEqual([
        'still building FerretDB v1.24.2 (downloading the module): 10 s so far',
        'still building FerretDB v1.24.2 (compiling): 20 s so far',
        'still building FerretDB v1.24.2 (compiling): 30 s so far',
      ]);
    });
  });
});
