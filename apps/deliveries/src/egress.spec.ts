/**
 * The egress check per address class, without a single request: every class the issue names (loopback, private,
 * link-local and cloud metadata, carrier-grade NAT, IPv6 loopback/link-local/unique-local, IPv4-mapped forms, NAT64
 * and 6to4 translations of inside addresses) is refused, public unicast passes, and a host whose answers mix one
 * refused address with public ones is refused as a whole (the resolver is the test's: nothing is looked up).
 */
import { addressRange, checkAddress, checkedLookup, EgressRefused, type ResolvedAddress } from './egress';

const strict = { allowLoopback: false };
const development = { allowLoopback: true };
const loopbackOnly = { allowLoopback: false, loopbackOnly: true };

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.9.9.9', 'loopback'],
  ['::1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'], // AWS, GCP and Azure instance metadata
  ['169.254.0.1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.100.100.200', 'carrierGradeNat'], // Alibaba Cloud metadata
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.10', 'reserved'],
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:7f00:1', 'loopback'],
  ['64:ff9b::a00:1', 'rfc6052'], // NAT64 of 10.0.0.1
  ['2002:a00:1::', '6to4'], // 6to4 of 10.0.0.1
];

describe('egress address check', () => {
  it.each(REFUSED)('when the address is %s, then it is refused as %s', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(() => checkAddress(address, strict)).toThrow(EgressRefused);
  });

  it('when the address is public unicast, then it passes (IPv4, IPv6, IPv4-mapped)', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34']) {
      expect(() => checkAddress(address, strict)).not.toThrow();
    }
  });

  it('when development allows loopback, then only loopback passes: private, link-local and metadata stay refused', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(() => checkAddress(address, development)).not.toThrow();
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1', '100.64.0.1', '::ffff:192.168.0.1']) {
      expect(() => checkAddress(address, development)).toThrow(EgressRefused);
    }
  });

  it('when egress is loopback only, then loopback passes and everything else is refused, public unicast included', () => {
    for (const address of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1'])
      expect(() => checkAddress(address, loopbackOnly)).not.toThrow();
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '10.0.0.1', '169.254.169.254']) {
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
