/**
 * The egress check, without a single request: every IANA special-purpose range in every textual form is refused, as
 * a resolver's answer and as a URL literal, public unicast passes, and a host whose answers mix one refused address
 * with public ones is refused as a whole (the resolver is the test's: nothing is looked up).
 */
import { PUBLIC_ADDRESSES, PUBLIC_URLS, SPECIAL_IPV4, SPECIAL_IPV6, SPECIAL_URLS } from '@platform/testing';
import {
  checkAddress,
  checkedLookup,
  checkLiteralHost,
  EgressRefused,
  NOT_PUBLIC,
  type ResolvedAddress,
} from './egress';

const strict = { allowLoopback: false };
const development = { allowLoopback: true };
const loopbackOnly = { allowLoopback: false, loopbackOnly: true };

const SPECIAL = [...SPECIAL_IPV4, ...SPECIAL_IPV6].flatMap((row) =>
  row.forms.map((form) => [`${row.cidr} ${row.name} (${row.rfc})`, form, row.range] as const),
);

describe('egress address check', () => {
  it.each(SPECIAL)('%s: %s is refused', (_range, form) => {
    expect(() => checkAddress(form, strict)).toThrow(EgressRefused);
  });

  it.each(SPECIAL_URLS)('the URL literal %s (%s) is refused before connecting', (url) => {
    expect(() => checkLiteralHost(new URL(url).hostname, strict)).toThrow(EgressRefused);
  });

  it.each(PUBLIC_ADDRESSES)('the public address %s passes', (address) => {
    expect(() => checkAddress(address, strict)).not.toThrow();
  });

  it.each(PUBLIC_URLS)('the public URL %s passes the literal check', (url) => {
    expect(() => checkLiteralHost(new URL(url).hostname, strict)).not.toThrow();
  });

  it('when an address is refused, then the owner is told one wording, and only the log message names the address', () => {
    for (const address of ['127.0.0.1', '::a9fe:a9fe', '10.0.0.1', '64:ff9b::a00:1']) {
      const refusal = (() => {
        try {
          checkAddress(address, strict);
          return null;
        } catch (error) {
          return error as EgressRefused;
        }
      })();
      expect(refusal?.ownerMessage).toBe(NOT_PUBLIC);
      expect(refusal?.message).toContain(address);
    }
  });

  it('when development allows loopback, then only loopback passes: embedded forms, private and metadata stay refused', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '[::1]', '0:0:0:0:0:0:0:1'])
      expect(() => checkAddress(address, development)).not.toThrow();
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1', '100.64.0.1', '::ffff:192.168.0.1', '::127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::']) {
      expect(() => checkAddress(address, development)).toThrow(EgressRefused);
    }
  });

  it('when egress is loopback only, then loopback passes and everything else is refused, public unicast included', () => {
    for (const address of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1'])
      expect(() => checkAddress(address, loopbackOnly)).not.toThrow();
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '10.0.0.1', '169.254.169.254', '::7f00:1']) {
      expect(() => checkAddress(address, loopbackOnly)).toThrow(EgressRefused);
    }
  });
});

describe('egress lookup (the socket connects to what was checked)', () => {
  const lookup = (
    answers: ResolvedAddress[][],
    policy: { allowLoopback: boolean; loopbackOnly?: boolean } = strict,
    hostname = 'hooks.example',
  ) => {
    const calls: string[] = [];
    let call = 0;
    const resolve = async (hostname: string) => {
      calls.push(hostname);
      return answers[Math.min(call++, answers.length - 1)]!;
    };
    const run = (options: { all?: boolean } = {}) =>
      new Promise<{ error: unknown; address: unknown; family: unknown }>((done) =>
        (
          checkedLookup(resolve, policy) as unknown as (
            h: string,
            o: object,
            cb: (error: unknown, address?: unknown, family?: unknown) => void,
          ) => void
        )(hostname, options, (error, address, family) => done({ error, address, family })),
      );
    return { run, calls };
  };

  it('when a name resolves to a public and a private address, then the whole name is refused', async () => {
    const { run } = lookup([
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ],
    ]);
    const { error } = await run();
    expect(error).toBeInstanceOf(EgressRefused);
  });

  it('when the answers change between lookups (rebinding), then each connection checks and uses its own answer', async () => {
    const { run, calls } = lookup([
      [{ address: '93.184.216.34', family: 4 }],
      [{ address: '169.254.169.254', family: 4 }],
    ]);
    const first = await run();
    expect(first).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const second = await run({ all: true });
    expect(second.error).toBeInstanceOf(EgressRefused);
    expect(calls).toEqual(['hooks.example', 'hooks.example']);
  });

  it.each([['::a9fe:a9fe'], ['::169.254.169.254'], ['::7f00:1'], ['::1:2:3:4'], ['64:ff9b::a9fe:a9fe'], ['fec0::1']])(
    'when a name answers %s, then the name is refused',
    async (address) => {
      const { run } = lookup([[{ address, family: 6 }]]);
      expect((await run()).error).toBeInstanceOf(EgressRefused);
    },
  );

  it('when the socket asks for all addresses, then it gets only the checked one', async () => {
    const { run } = lookup([[{ address: '2606:4700:4700::1111', family: 6 }]]);
    expect((await run({ all: true })).address).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });

  it('when egress is loopback only, then a name is refused without a lookup (no DNS query), and localhost is answered locally', async () => {
    const named = lookup([[{ address: '127.0.0.1', family: 4 }]], loopbackOnly, 'example.com');
    expect((await named.run()).error).toBeInstanceOf(EgressRefused);
    expect(named.calls).toEqual([]);
    const local = lookup([[{ address: '93.184.216.34', family: 4 }]], loopbackOnly, 'localhost');
    expect(await local.run()).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(local.calls).toEqual([]);
  });
});
