/**
 * The one classification of an IP address, whatever its textual form, for webhook registration and delivery alike:
 * ipaddr.js ranges, after a WHATWG host parse (which ipaddr.js gets wrong for `::a.b.c.d`), plus what it lacks.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** `::/96` but `::` and `::1`: the deprecated IPv4-compatible addresses (RFC 4291 section 2.5.5.1). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** Global unicast (RFC 4291 section 2.4, IANA IPv6 address space): all else ipaddr.js calls `unicast` is reserved. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

export interface CanonicalAddress {
  /** The address as the WHATWG URL parser serializes it (`127.0.0.1`, `::ffff:7f00:1`), without brackets or zone. */
  address: string;
  family: 4 | 6;
  /** It carried a zone id (`fe80::1%eth0`): a scoped address. */
  zoned: boolean;
}

/**
 * The canonical form of an IP address written in any form a resolver or a URL may give: dotted or any inet_aton
 * form (`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`), IPv6 compressed, expanded or mixed, bracketed, with a
 * zone id. Null when the text is not an IP address (a name).
 */
export function canonicalAddress(text: string): CanonicalAddress | null {
  let bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = bare.indexOf('%');
  const zoned = zone >= 0;
  if (zoned) bare = bare.slice(0, zone);
  try {
    if (bare.includes(':')) {
      if (!/^[0-9a-f:.]+$/i.test(bare)) return null;
      const host = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
      return isIP(host) === 6 ? { address: host, family: 6, zoned } : null;
    }
    if (zoned || !/^[0-9a-fx.]+$/i.test(bare)) return null;
    const host = new URL(`http://${bare}/`).hostname;
    return isIP(host) === 4 ? { address: host, family: 4, zoned } : null;
  } catch {
    return null;
  }
}

/**
 * The range of an address: `unicast` for a public one and only for it. Otherwise the ipaddr.js range (`loopback`,
 * `private`, `linkLocal`, `rfc6052`, `6to4`, `teredo`, ...), `ipv4Compatible`, `reserved` (IPv6 outside 2000::/3 that
 * ipaddr.js leaves `unicast`), `scoped` (a zone id on a global address) or `invalid` (not an IP address). An
 * IPv4-mapped address (`::ffff:a.b.c.d`) is judged as the IPv4 address it carries; every other form embedding an
 * IPv4 address (compatible, NAT64, 6to4, Teredo, SIIT) is refused as its own range.
 */
export function addressClass(text: string): string {
  const canonical = canonicalAddress(text);
  if (!canonical) return 'invalid';
  const range = rangeOf(ipaddr.parse(canonical.address));
  return range === 'unicast' && canonical.zoned ? 'scoped' : range;
}

function rangeOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return v6.toIPv4Address().range();
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return v6.match(GLOBAL_UNICAST) ? 'unicast' : 'reserved';
}

/** `localhost` and `*.localhost`: loopback by definition (RFC 6761 section 6.3), never looked up. */
export const isLocalhostName = (hostname: string): boolean => /^(.+\.)?localhost\.?$/i.test(hostname);
