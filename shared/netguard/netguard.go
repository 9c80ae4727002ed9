// Package netguard is the one guard of every outbound HTTP request the service makes on a
// client's behalf (webhook deliveries, image_url fetches): the address actually dialled must be
// a public internet address (never private, loopback unless allowed, link-local or cloud
// metadata), whatever DNS answers and on every redirect hop, and every phase has a deadline.
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

// forbidden are the ranges no request may reach (loopback aside, which allowLoopback permits):
// private, shared (CGNAT), link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254
// included), unspecified, multicast, documentation and benchmark ranges, and the IPv6 forms
// that embed an IPv4 address.
var forbidden = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32",
		"2002::/16", "fc00::/7", "fe80::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Allowed reports whether a request may connect to ip.
func Allowed(ip netip.Addr, allowLoopback bool) bool {
	ip = ip.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if allowLoopback && ip.IsLoopback() {
		return true
	}
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	for _, p := range forbidden {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Client is an HTTP client whose every connection is checked when it is made (the dialer's
// Control sees the IP actually dialled, even if DNS changes between a check and the
// connection), with no proxy, whole-request deadline timeout, and at most maxRedirects
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
// credentials in it, https unless allowHTTP (local use only); a literal IP must be allowed.
// Names are checked when the connection is made. It answers the problem ("" when none), as
// "must ..." text for a validation message about the field.
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
	if ip, err := netip.ParseAddr(host); err == nil && !Allowed(ip, allowLoopback) {
		return "must point to a public internet address."
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); !allowLoopback && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
		return "must point to a public internet address."
	}
	return ""
}
