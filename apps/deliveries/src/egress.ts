/**
 * Safe egress for webhook deliveries (issue item 4): an endpoint's host is resolved at each delivery and EVERY
 * address it resolves to is checked; the connection then goes to the checked address itself (the resolver is the
 * socket's `lookup`, so no second resolution happens between the check and the connect: DNS rebinding gains nothing).
 * Refused: loopback (unless WEBHOOK_ALLOW_LOOPBACK), private (RFC 1918), link-local (cloud metadata at 169.254.169.254
 * included), carrier-grade NAT, unique-local and every other special-purpose range of ipaddr.js (unspecified,
 * multicast, broadcast, reserved, documentation, benchmarking, NAT64/6to4/Teredo translations, ...); an IPv4-mapped
 * IPv6 address is judged as the IPv4 address it carries. Only the `unicast` range passes.
 * The address classes come from ipaddr.js (the library express' proxy-addr uses), not from hand-kept tables.
 * WEBHOOK_EGRESS=loopback (the test kit's and the benches' systems, sandboxes) narrows it to loopback alone, decided
 * before any lookup: an IP literal must be loopback, `localhost` is answered here (RFC 6761), and every other name is
 * refused without a DNS query, so nothing a client registers (an `https://example.com/hooks`) makes the worker send
 * a packet off the machine, not even to its resolver.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address (tests give one of their own; production asks the system resolver). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error
        ? reject(error)
        : resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))),
    ),
  );

export interface EgressPolicy {
  /** Development (`npm start`): loopback endpoints are allowed, so a developer can receive on localhost. */
  allowLoopback: boolean;
  /** WEBHOOK_EGRESS=loopback: loopback only (allowLoopback implied), and no name looked up but `localhost`. */
  loopbackOnly?: boolean;
}

/** The addresses `localhost` (and `*.localhost`) names, answered without a lookup (RFC 6761 section 6.3). */
const LOCALHOST: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];
const isLocalhostName = (hostname: string): boolean => /^(.+\.)?localhost\.?$/i.test(hostname);

export class EgressRefused extends Error {
  constructor(
    readonly address: string,
    readonly range: string,
    message = `refused: ${address} is a ${range} address`,
  ) {
    super(message);
    this.name = 'EgressRefused';
  }
}

/** The ipaddr.js range of an address (`unicast`, `loopback`, `private`, ...), IPv4-mapped IPv6 judged as IPv4. */
export function addressRange(address: string): string {
  const parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  }
  return parsed.range();
}

/** Throws EgressRefused unless the address may be connected to under the policy. */
export function checkAddress(address: string, policy: EgressPolicy): void {
  const range = addressRange(address);
  if (range === 'loopback' && (policy.allowLoopback || policy.loopbackOnly)) return;
  if (range === 'unicast' && !policy.loopbackOnly) return;
  if (range === 'unicast')
    throw new EgressRefused(
      address,
      range,
      `refused: ${address} is public: egress is loopback only (WEBHOOK_EGRESS=loopback)`,
    );
  throw new EgressRefused(address, range);
}

/**
 * The socket's `lookup`: resolves with `resolver`, refuses the host when any of its addresses is refused (a name
 * that also points inside is not an endpoint to trust), and hands the socket the first address it checked.
 */
export function checkedLookup(resolver: Resolver, policy: EgressPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const resolved = policy.loopbackOnly
      ? isLocalhostName(hostname)
        ? Promise.resolve(LOCALHOST)
        : Promise.reject(
            new EgressRefused(
              hostname,
              'name',
              `refused: ${hostname} is not looked up: egress is loopback only (WEBHOOK_EGRESS=loopback)`,
            ),
          )
      : resolver(hostname);
    resolved
      .then((addresses) => {
        if (addresses.length === 0)
          throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        for (const { address } of addresses) checkAddress(address, policy);
        const chosen = addresses[0]!;
        if (options?.all) callback(null, [chosen]);
        else callback(null, chosen.address, chosen.family);
      })
      .catch((error: unknown) => callback(error));
  }) as LookupFunction;
}

/** An IP literal in a URL is never looked up by the socket: it is checked here, before connecting. */
export function checkLiteralHost(hostname: string, policy: EgressPolicy): void {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) checkAddress(bare, policy);
}
