/**
 * The one classification over every IANA special-purpose IPv4 and IPv6 range, each address in every textual form
 * (inet_aton forms, compressed, expanded and mixed IPv6, bracketed, zone ids, WHATWG URL hosts), and public controls.
 */
import ipaddr from 'ipaddr.js';
import { PUBLIC_ADDRESSES, PUBLIC_URLS, SPECIAL_IPV4, SPECIAL_IPV6, SPECIAL_URLS } from '@platform/testing';
import { addressClass, canonicalAddress } from './address-class';

const rows = [...SPECIAL_IPV4, ...SPECIAL_IPV6].flatMap((row) =>
  row.forms.map((form) => [row.cidr, row.name, row.rfc, form, row.range] as const),
);

/** The address the form names, as an ipaddr.js value of the range's family (an IPv4-mapped one as its IPv4). */
const inFamilyOf = (cidr: string, form: string) => {
  const parsed = ipaddr.parse(canonicalAddress(form)!.address);
  const v4Range = !cidr.includes(':');
  return v4Range && parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
};

describe('address classification', () => {
  it.each(rows)('%s (%s, %s): %s is %s, never unicast', (cidr, _name, _rfc, form, range) => {
    // The sample lies in the range it stands for (so the table cannot drift from the registry's prefixes).
    expect(inFamilyOf(cidr, form).match(ipaddr.parseCIDR(cidr))).toBe(true);
    expect(addressClass(form)).toBe(range);
  });

  it.each(SPECIAL_URLS)('the URL %s names a host of class %s', (url, range) => {
    expect(addressClass(new URL(url).hostname)).toBe(range);
  });

  it.each(PUBLIC_ADDRESSES)('the public address %s is unicast', (address) => {
    expect(addressClass(address)).toBe('unicast');
  });

  it.each(PUBLIC_URLS)('the URL %s names a public host or a name', (url) => {
    const host = new URL(url).hostname;
    expect(canonicalAddress(host) === null || addressClass(host) === 'unicast').toBe(true);
  });

  it('when the text is not an address, then it is invalid (never public), and a zone id never makes one public', () => {
    for (const text of ['example.com', 'dead.beef', '1.2.3.4.5', '256.1.1.1', '::g', '', '[]', '1.2.3.4%eth0'])
      expect(addressClass(text)).toBe('invalid');
    expect(addressClass('2606:4700:4700::1111%eth0')).toBe('scoped');
  });

  it('when IPv6 is written in mixed notation, then it is read as written: ::a.b.c.d is not ::ffff:a.b.c.d', () => {
    expect(canonicalAddress('::127.0.0.1')).toEqual({ address: '::7f00:1', family: 6, zoned: false });
    expect(canonicalAddress('::ffff:127.0.0.1')).toEqual({ address: '::ffff:7f00:1', family: 6, zoned: false });
    expect(canonicalAddress('[fe80::1%eth0]')).toEqual({ address: 'fe80::1', family: 6, zoned: true });
    expect(canonicalAddress('0x7f000001')).toEqual({ address: '127.0.0.1', family: 4, zoned: false });
  });
});
