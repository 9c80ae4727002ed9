// Package netguard is the one guard of every outbound HTTP request the service makes on a
// client's behalf (webhook deliveries, image_url fetches): the address actually dialled must be
// a public internet address (never private, loopback unless allowed, link-local or cloud
// metadata), whatever DNS answers and on every redirect hop, and every phase has a deadline.
//
// The rule is an allow-list (Allowed), the same for a URL's literal host and for the address
// each connection dials:
//   - IPv4 (an IPv4-mapped ::ffff:a.b.c.d is the IPv4 address it maps: the kernel dials that)
//     must be public unicast: not this network, private, shared (CGNAT), loopback, link-local,
//     IETF protocol assignments, documentation, benchmarking, the 6to4 relay anycast,
//     multicast, reserved or broadcast.
//   - IPv6 must be global unicast (2000::/3) outside its special-purpose ranges: 2001::/23
//     (IETF protocol assignments, Teredo 2001::/32 among them), 2001:db8::/32 and 3fff::/20
//     (documentation), 2002::/16 (6to4) and 5f00::/16 (SRv6). So every other IPv4-embedding
//     form is refused whatever the IPv4 address it carries, public or not: IPv4-compatible
//     ::/96, IPv4-translated ::ffff:0:0:0/96 and NAT64 64:ff9b::/96 and 64:ff9b:1::/48 lie
//     outside 2000::/3, 6to4 and Teredo inside the ranges refused. A public IPv4 destination is
//     reachable as itself; through a relay or translator it would be whatever that makes of
//     it. (The functions run outside a VPC, with IPv4 egress and no DNS64: no name answers
//     NAT64 addresses there.)
//   - Loopback (127/8, ::1, and ::ffff:127.x.y.z, dialled as 127.x.y.z) only with
//     allowLoopback, for local use and tests; ::127.0.0.1 (IPv4-compatible) is never loopback.
//     Addresses with a zone are refused.
//
// A URL's host must be a proper name or an address in its canonical form (CheckURL): an
// IPv4 address as four decimal numbers, an IPv6 address in brackets. A host ending in a
// numeric label (2852039166, 0251.0376.0251.0376, 0xa9fea9fe, 169.254.43518, 127.1,
// 127.0.0.01, 10.0.0.1.) is an address in some other spelling, which the C library's resolver
// (and browsers) would read as one: it is refused, not interpreted. A host that is not ASCII
// is refused too: net/http maps it with IDNA before dialling (fullwidth １２７.０.０.１ is
// 127.0.0.1), so an international name must come as its xn-- form.
package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DialTimeout bounds a connection's set-up (TCP and TLS).
const DialTimeout = 3 * time.Second

// ErrForbiddenAddress is a connection refused because the address it would reach is not public.
var ErrForbiddenAddress = errors.New("the address is not a public internet address")

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// special4 are the IPv4 ranges that are not public unicast (IANA's special-purpose registry,
// the globally reachable entries aside, and multicast); loopback is decided before.
var special4 = prefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
)

// global6 is IPv6 global unicast; special6 the ranges in it that are refused.
var (
	global6  = netip.MustParsePrefix("2000::/3")
	special6 = prefixes("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16")
)

func inAny(ps []netip.Prefix, ip netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Allowed reports whether a request may connect to ip (the package's rule).
func Allowed(ip netip.Addr, allowLoopback bool) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	if ip.Is4() {
		if ip.IsLoopback() {
			return allowLoopback
		}
		return !inAny(special4, ip)
	}
	if ip == netip.IPv6Loopback() {
		return allowLoopback
	}
	return global6.Contains(ip) && !inAny(special6, ip)
}

// Client is an HTTP client whose every connection is checked when it is made (the dialer's
// Control applies Allowed to the IP actually dialled, even if DNS changes between a check and
// the connection), with no proxy, whole-request deadline timeout, and at most maxRedirects
// redirects (each to an http(s) URL; its connection is checked like the first).
func Client(allowLoopback bool, timeout time.Duration, maxRedirects int) *http.Client {
	dialer := &net.Dialer{
		Timeout: DialTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Allowed(ap.Addr(), allowLoopback) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    DialTimeout,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return http.ErrUseLastResponse
			}
			if msg := CheckURL(r.URL.String(), true, allowLoopback); msg != "" {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
}

// CheckURL is the rule for a URL the service will fetch: absolute http(s) with a host, no
// credentials in it, https unless allowHTTP (local use only); the host ASCII, a literal IP
// canonical and allowed. Names are checked when the connection is made. It answers the
// problem ("" when none), as "must ..." text for a validation message about the field.
func CheckURL(raw string, allowHTTP, allowLoopback bool) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "must be a valid URL."
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !allowHTTP {
			return "must use https."
		}
	default:
		return "must use https."
	}
	if u.User != nil {
		return "must not contain credentials."
	}
	host := u.Hostname()
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "must write its host name in ASCII (an international name as xn--...)."
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !Allowed(ip, allowLoopback) {
			return "must point to a public internet address."
		}
		return ""
	}
	if endsInNumber(host) {
		return "must write an IP address in the usual way (like 93.184.216.34, or [2606:4700::1111])."
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); !allowLoopback && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
		return "must point to a public internet address."
	}
	return ""
}

// endsInNumber reports whether host's last label (a trailing dot aside) is a number, decimal or
// 0x hex (octal is decimal digits): the WHATWG URL rule for a host that is an IPv4 address. No
// top-level domain is numeric, so such a host is never a name.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := strings.ToLower(host[strings.LastIndexByte(host, '.')+1:])
	if last == "" {
		return false
	}
	digits := "0123456789"
	if strings.HasPrefix(last, "0x") {
		last, digits = last[2:], "0123456789abcdef"
	}
	for _, c := range last {
		if !strings.ContainsRune(digits, c) {
			return false
		}
	}
	return true
}
