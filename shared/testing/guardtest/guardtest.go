// Package guardtest lists the URL hosts no outbound request may reach (shared/netguard), for
// the tests of every package that takes a URL to fetch: each is refused with loopback allowed
// or not, so a test needs no loopback exception.
package guardtest

// Host is a URL's host (what goes between "//" and the path) and what it denotes.
type Host struct {
	Host, Denotes string
}

// Hostile are refused whatever the options: non-public addresses in every spelling, and
// spellings of public addresses that are not the canonical one.
var Hostile = []Host{
	// IPv4, canonical.
	{"0.0.0.0", "this network"},
	{"10.0.0.1", "private"},
	{"100.64.0.1", "shared (CGNAT)"},
	{"169.254.169.254", "link-local: cloud metadata"},
	{"172.16.0.1", "private"},
	{"172.31.255.255", "private"},
	{"192.0.0.1", "IETF protocol assignments"},
	{"192.0.2.1", "documentation"},
	{"192.88.99.1", "6to4 relay anycast"},
	{"192.168.1.1", "private"},
	{"198.18.0.1", "benchmarking"},
	{"198.51.100.1", "documentation"},
	{"203.0.113.1", "documentation"},
	{"224.0.0.1", "multicast"},
	{"240.0.0.1", "reserved"},
	{"255.255.255.255", "broadcast"},
	// IPv4, other spellings (inet_aton's: decimal, octal, hex, short forms).
	{"2852039166", "169.254.169.254 as one decimal number"},
	{"0251.0376.0251.0376", "169.254.169.254 in octal"},
	{"0xa9fea9fe", "169.254.169.254 as one hex number"},
	{"0XA9FEA9FE", "169.254.169.254 as one hex number"},
	{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254 in hex parts"},
	{"169.254.43518", "169.254.169.254, three parts"},
	{"169.16689662", "169.254.169.254, two parts"},
	{"127.1", "127.0.0.1, two parts"},
	{"0x7f.1", "127.0.0.1, hex and short"},
	{"127.0.0.01", "127.0.0.1 with a leading zero"},
	{"017700000001", "127.0.0.1 as one octal number"},
	{"0", "0.0.0.0 as one number"},
	{"0x", "0.0.0.0 (WHATWG)"},
	{"10.0.0.1.", "10.0.0.1 with a trailing dot"},
	{"1572395042", "93.184.216.34 (public) as one decimal number"},
	{"93.184.216.34.", "93.184.216.34 (public) with a trailing dot"},
	{"1.2.3.4.5", "five numbers"},
	{"１２７.０.０.１", "127.0.0.1 in fullwidth digits (IDNA maps it)"},
	{"127。0。0。1", "127.0.0.1 with ideographic full stops (IDNA maps them)"},
	// IPv6: loopback, unspecified, the IPv4-embedding forms.
	{"[::]", "unspecified"},
	{"[::127.0.0.1]", "IPv4-compatible 127.0.0.1"},
	{"[::169.254.169.254]", "IPv4-compatible metadata"},
	{"[::a9fe:a9fe]", "IPv4-compatible metadata, hex"},
	{"[::10.0.0.1]", "IPv4-compatible private"},
	{"[::5db8:d822]", "IPv4-compatible 93.184.216.34 (public)"},
	{"[::ffff:169.254.169.254]", "IPv4-mapped metadata"},
	{"[::ffff:a9fe:a9fe]", "IPv4-mapped metadata, hex"},
	{"[0:0:0:0:0:ffff:10.0.0.1]", "IPv4-mapped private, long form"},
	{"[::ffff:0:169.254.169.254]", "IPv4-translated metadata"},
	{"[::ffff:0:a9fe:a9fe]", "IPv4-translated metadata, hex"},
	{"[64:ff9b::169.254.169.254]", "NAT64 metadata"},
	{"[64:ff9b::5db8:d822]", "NAT64 93.184.216.34 (public)"},
	{"[64:ff9b:1::a9fe:a9fe]", "local-use NAT64 metadata"},
	{"[2002:a9fe:a9fe::1]", "6to4 metadata"},
	{"[2002:5db8:d822::1]", "6to4 93.184.216.34 (public)"},
	{"[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "Teredo"},
	{"[2001::a9fe:a9fe]", "Teredo, server 0.0.0.0"},
	// IPv6: other special-purpose ranges.
	{"[100::1]", "discard-only"},
	{"[2001:2::1]", "benchmarking"},
	{"[2001:20::1]", "ORCHIDv2"},
	{"[2001:db8::1]", "documentation"},
	{"[3fff::1]", "documentation"},
	{"[5f00::1]", "SRv6 SIDs"},
	{"[fc00::1]", "unique local"},
	{"[fd00::1]", "unique local"},
	{"[fd00:ec2::254]", "unique local: cloud metadata"},
	{"[fe80::1]", "link-local"},
	{"[fe80::1%25eth0]", "link-local with a zone"},
	{"[fe80::a9fe:a9fe]", "link-local embedding metadata"},
	{"[fec0::1]", "site-local (deprecated)"},
	{"[ff02::1]", "multicast, link-local scope"},
	{"[ff0e::1]", "multicast, global scope"},
	{"[4000::1]", "outside 2000::/3 (unassigned)"},
	{"[c000::1]", "outside 2000::/3 (unassigned)"},
	{"[::1%25lo]", "loopback with a zone"},
}

// Loopback are refused unless loopback is allowed (local use and tests).
var Loopback = []Host{
	{"127.0.0.1", "loopback"},
	{"127.255.255.254", "loopback"},
	{"[::1]", "loopback"},
	{"[::ffff:127.0.0.1]", "IPv4-mapped loopback (dialled as 127.0.0.1)"},
	{"localhost", "loopback by name"},
	{"LocalHost.", "loopback by name"},
	{"app.localhost", "loopback by name"},
}

// Public are accepted: canonical public addresses and names.
var Public = []Host{
	{"93.184.216.34", "public IPv4"},
	{"8.8.8.8", "public IPv4"},
	{"100.63.255.255", "just below 100.64/10"},
	{"100.128.0.1", "just above 100.64/10"},
	{"172.15.255.255", "just below 172.16/12"},
	{"172.32.0.1", "just above 172.16/12"},
	{"223.255.255.255", "just below multicast"},
	{"[2606:4700::1111]", "public IPv6"},
	{"[2a00:1450:4001:80b::200e]", "public IPv6"},
	{"[2001:200::1]", "public IPv6 just above 2001::/23"},
	{"[2003::1]", "public IPv6 just above 2002::/16"},
	{"example.com", "a name"},
	{"example.com.", "a name, fully qualified"},
	{"xn--bcher-kva.example", "an international name in ASCII"},
	{"1.2.3.example", "a name with numeric labels"},
	{"0x7f.example", "a name with a hex-looking label"},
}
