/**
 * Every IANA special-purpose IPv4 and IPv6 registry entry (and the address-space entries outside global unicast), each
 * with its RFC, the class the egress check gives it and addresses in it written in each textual form a resolver or a
 * client may give; then URL literals in the WHATWG forms a client can type, and public controls that must pass.
 */

export interface SpecialRange {
  /** The range as the registry writes it. */
  cidr: string;
  name: string;
  rfc: string;
  /** What addressClass answers for it (never `unicast`). */
  range: string;
  /** Addresses in it, each form of writing them. */
  forms: readonly string[];
}

export const SPECIAL_IPV4: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: 'This network', rfc: 'RFC 791 section 3.2', range: 'unspecified', forms: ['0.1.2.3', '0.0.0.1', '0x0.1.2.3', '00.1.2.3', '::ffff:0.1.2.3', '::ffff:1:203', '[::ffff:0.1.2.3]'] },
  { cidr: '0.0.0.0/32', name: 'This host on this network', rfc: 'RFC 1122 section 3.2.1.3', range: 'unspecified', forms: ['0.0.0.0', '0', '0x0', '0.0', '000.000.000.000', '::ffff:0.0.0.0', '::ffff:0:0'] },
  { cidr: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', range: 'private', forms: ['10.0.0.1', '10.255.255.255', '10.1', '012.0.0.1', '0xa.0.0.1', '0x0a000001', '167772161', '::ffff:10.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:a00:1', '0000:0000:0000:0000:0000:FFFF:0A00:0001', '[::ffff:10.0.0.1]'] },
  { cidr: '100.64.0.0/10', name: 'Shared Address Space (carrier-grade NAT)', rfc: 'RFC 6598', range: 'carrierGradeNat', forms: ['100.64.0.1', '100.127.255.254', '100.100.100.200', '1684300900', '::ffff:100.64.0.1', '::ffff:6440:1'] },
  { cidr: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122 section 3.2.1.3', range: 'loopback', forms: ['127.0.0.1', '127.255.255.254', '127.1', '127.0.1', '0x7f000001', '0X7F000001', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '017700000001', '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:1', '0:0:0:0:0:ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'] },
  { cidr: '169.254.0.0/16', name: 'Link Local (cloud instance metadata)', rfc: 'RFC 3927', range: 'linkLocal', forms: ['169.254.169.254', '169.254.0.1', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', '169.16689662', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '[::ffff:a9fe:a9fe]'] },
  { cidr: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', range: 'private', forms: ['172.16.0.1', '172.31.255.255', '172.16.1', '2886729729', '::ffff:172.16.0.1', '::ffff:ac10:1'] },
  { cidr: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890 section 2.1', range: 'reserved', forms: ['192.0.0.1', '192.0.0.255', '::ffff:192.0.0.1'] },
  { cidr: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', range: 'reserved', forms: ['192.0.0.1', '192.0.0.7'] },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', range: 'reserved', forms: ['192.0.0.8', '3221225480'] },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', range: 'reserved', forms: ['192.0.0.9'] },
  { cidr: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', range: 'reserved', forms: ['192.0.0.10'] },
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050 section 2.2', range: 'reserved', forms: ['192.0.0.170'] },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050 section 2.2', range: 'reserved', forms: ['192.0.0.171'] },
  { cidr: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', range: 'reserved', forms: ['192.0.2.1', '192.0.2.255', '::ffff:192.0.2.1'] },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', range: 'as112', forms: ['192.31.196.1'] },
  { cidr: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', range: 'amt', forms: ['192.52.193.1'] },
  { cidr: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', range: 'reserved', forms: ['192.88.99.1'] },
  { cidr: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', range: 'private', forms: ['192.168.1.1', '192.168.257', '3232235777', '0xc0.0xa8.1.1', '0300.0250.1.1', '::ffff:192.168.1.1', '::ffff:c0a8:101'] },
  { cidr: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', range: 'as112', forms: ['192.175.48.1'] },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', range: 'reserved', forms: ['198.18.0.1', '198.19.255.255'] },
  { cidr: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', range: 'reserved', forms: ['198.51.100.1'] },
  { cidr: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', range: 'reserved', forms: ['203.0.113.1'] },
  { cidr: '224.0.0.0/4', name: 'Multicast (IPv4 address space registry)', rfc: 'RFC 5771', range: 'multicast', forms: ['224.0.0.1', '239.255.255.255', '0xe0000001', '::ffff:224.0.0.1'] },
  { cidr: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112 section 4', range: 'reserved', forms: ['240.0.0.1', '255.255.255.254', '::ffff:240.0.0.1'] },
  { cidr: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919 section 7', range: 'broadcast', forms: ['255.255.255.255', '4294967295', '0xffffffff', '::ffff:255.255.255.255'] },
];

export const SPECIAL_IPV6: readonly SpecialRange[] = [
  { cidr: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', range: 'loopback', forms: ['::1', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', '::0:1', '[::1]', '::1%lo'] },
  { cidr: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', range: 'unspecified', forms: ['::', '0:0:0:0:0:0:0:0', '::0', '[::]'] },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)', rfc: 'RFC 4291 section 2.5.5.1', range: 'ipv4Compatible', forms: ['::169.254.169.254', '::a9fe:a9fe', '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::a00:1', '::8.8.8.8', '::0.0.0.2', '0:0:0:0:0:0:127.0.0.1', '0:0:0:0:0:0:7f00:1', '[::127.0.0.1]', '[::a9fe:a9fe]'] },
  { cidr: '::/8', name: 'Reserved by IETF (IPv6 address space registry)', rfc: 'RFC 4291', range: 'reserved', forms: ['::1:2:3:4', '0:0:0:0:1:2:3:4', '[::1:2:3:4]', '::1:0:0:0', 'ff::1', '::ffff:1:2:3'] },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated (SIIT)', rfc: 'RFC 2765, RFC 6145', range: 'rfc6145', forms: ['::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:a00:1', '0:0:0:0:ffff:0:a9fe:a9fe'] },
  { cidr: '64:ff9b::/96', name: 'IPv4-IPv6 Translation (NAT64)', rfc: 'RFC 6052', range: 'rfc6052', forms: ['64:ff9b::a9fe:a9fe', '64:ff9b::169.254.169.254', '64:ff9b::127.0.0.1', '64:ff9b::808:808', '0064:ff9b:0000:0000:0000:0000:7f00:0001', '[64:ff9b::a00:1]'] },
  { cidr: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translation (local use)', rfc: 'RFC 8215', range: 'rfc6052', forms: ['64:ff9b:1::a00:1', '64:ff9b:1::10.0.0.1', '64:ff9b:1:ffff::1'] },
  { cidr: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', range: 'discard', forms: ['100::1', '100::ffff:ffff:ffff:ffff', '0100:0000:0000:0000::1'] },
  { cidr: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', range: 'reserved', forms: ['100:0:0:1::1'] },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', range: 'reserved', forms: ['2001:100::1', '2001:1ff:ffff::1', '2001:4::1'] },
  { cidr: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', range: 'teredo', forms: ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0000:4136:e378:8000:63bf:3fff:fdd2', '2001::a9fe:a9fe', '[2001::1]'] },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', range: 'reserved', forms: ['2001:1::1'] },
  { cidr: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', range: 'reserved', forms: ['2001:1::2'] },
  { cidr: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665', range: 'reserved', forms: ['2001:1::3'] },
  { cidr: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180', range: 'benchmarking', forms: ['2001:2::1', '2001:2:0:ffff::1'] },
  { cidr: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', range: 'amt', forms: ['2001:3::1'] },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', range: 'as112v6', forms: ['2001:4:112::1'] },
  { cidr: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', range: 'deprecatedOrchid', forms: ['2001:10::1'] },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', range: 'orchid2', forms: ['2001:20::1'] },
  { cidr: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374', range: 'droneRemoteIdProtocolEntityTags', forms: ['2001:30::1'] },
  { cidr: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', range: 'reserved', forms: ['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '[2001:db8::1]'] },
  { cidr: '2002::/16', name: '6to4', rfc: 'RFC 3056', range: '6to4', forms: ['2002:a00:1::', '2002:7f00:1::1', '2002:a9fe:a9fe::1', '2002:808:808::1'] },
  { cidr: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', range: 'as112v6', forms: ['2620:4f:8000::1'] },
  { cidr: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', range: 'reserved', forms: ['3fff::1', '3fff:fff::1'] },
  { cidr: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', range: 'segmentRouting', forms: ['5f00::1'] },
  { cidr: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', range: 'uniqueLocal', forms: ['fc00::1', 'fd00:ec2::254', 'FD00:EC2::254', 'fdff:ffff::1', '[fd00:ec2::254]'] },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', range: 'linkLocal', forms: ['fe80::1', 'fe80::1%eth0', 'fe80::1%25eth0', '[fe80::1%eth0]', 'FE80::1', 'febf:ffff::1', 'fe80::a9fe:a9fe'] },
  { cidr: 'fec0::/10', name: 'Site-local (deprecated)', rfc: 'RFC 3879', range: 'deprecatedSiteLocal', forms: ['fec0::1', 'feff:ffff::1', 'fec0::1%1'] },
  { cidr: 'ff00::/8', name: 'Multicast (IPv6 address space registry)', rfc: 'RFC 4291', range: 'multicast', forms: ['ff02::1', 'ff05::1:3', 'ff0e::1', 'FF02:0:0:0:0:0:0:1'] },
  { cidr: '0100::/8', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['100:1::1', '1ff::1'] },
  { cidr: '0200::/7', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['200::1', '3ff::1'] },
  { cidr: '0400::/6', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['400::1'] },
  { cidr: '0800::/5', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['800::1'] },
  { cidr: '1000::/4', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['1000::1', '1fff::1'] },
  { cidr: '4000::/3', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['4000::1'] },
  { cidr: '6000::/3', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['6000::1'] },
  { cidr: '8000::/3', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['8000::1'] },
  { cidr: 'a000::/3', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['a000::1'] },
  { cidr: 'c000::/3', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['c000::1'] },
  { cidr: 'e000::/4', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['e000::1'] },
  { cidr: 'f000::/5', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['f000::1'] },
  { cidr: 'f800::/6', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['f800::1'] },
  { cidr: 'fe00::/9', name: 'Reserved by IETF (IPv6 address space registry, outside global unicast 2000::/3)', rfc: 'RFC 4291 section 2.4', range: 'reserved', forms: ['fe00::1'] },
];

/** URLs a client can type whose host is an inside address in a WHATWG form; each with the class its host gets. */
export const SPECIAL_URLS: ReadonlyArray<readonly [url: string, range: string]> = [
  ['https://127.0.0.1/hook', 'loopback'],
  ['https://0x7f000001/', 'loopback'],
  ['https://2130706433/', 'loopback'],
  ['https://127.1/', 'loopback'],
  ['https://0177.0.0.1/', 'loopback'],
  ['https://127.0.0.1./', 'loopback'],
  ['https://%31%32%37.0.0.1/', 'loopback'],
  ['https://\uff11\uff12\uff17.0.0.1/', 'loopback'],
  ['https://[::ffff:127.0.0.1]/', 'loopback'],
  ['https://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'],
  ['https://[::1]:8443/', 'loopback'],
  ['https://[::127.0.0.1]/', 'ipv4Compatible'],
  ['https://[::169.254.169.254]/latest/meta-data', 'ipv4Compatible'],
  ['https://[::a9fe:a9fe]/', 'ipv4Compatible'],
  ['https://[::10.0.0.1]/', 'ipv4Compatible'],
  ['https://[::1:2:3:4]/', 'reserved'],
  ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
  ['https://0xa9fea9fe/', 'linkLocal'],
  ['https://2852039166/', 'linkLocal'],
  ['https://[::ffff:169.254.169.254]/', 'linkLocal'],
  ['https://10.1/', 'private'],
  ['https://[64:ff9b::169.254.169.254]/', 'rfc6052'],
  ['https://[2002:a9fe:a9fe::]/', '6to4'],
  ['https://[2001::a9fe:a9fe]/', 'teredo'],
  ['https://[fec0::1]/', 'deprecatedSiteLocal'],
  ['https://[fd00:ec2::254]/', 'uniqueLocal'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://0/', 'unspecified'],
  ['https://[::]/', 'unspecified'],
  ['https://100.100.100.200/', 'carrierGradeNat'],
];

/** Public unicast addresses, in every form, that must pass. */
export const PUBLIC_ADDRESSES: readonly string[] = [
  '93.184.216.34',
  '0x5db8d822',
  '1572395042',
  '8.8.8.8',
  '1.1',
  '::ffff:93.184.216.34',
  '::ffff:5db8:d822',
  '[::ffff:8.8.8.8]',
  '2606:4700:4700::1111',
  '2606:4700:4700:0:0:0:0:1111',
  '[2606:4700:4700::1111]',
  '2a00:1450:4001:80b::200e',
  // Just beside a special range.
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '169.253.255.255',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2001:200::1',
  '2003::1',
  '3ffe::1',
];

/** Public URLs a client can type that must register and pass the literal check. */
export const PUBLIC_URLS: readonly string[] = [
  'https://93.184.216.34/hook',
  'https://[2606:4700:4700::1111]/hook',
  'https://[::ffff:93.184.216.34]/hook',
  'https://example.com/hooks',
  'https://hooks.example.com:8443/a?b=c',
];
