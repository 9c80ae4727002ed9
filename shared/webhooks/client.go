package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Delivery bounds: every attempt ends within AttemptTimeout, whatever the subscriber does.
const (
	DialTimeout    = 3 * time.Second
	AttemptTimeout = 10 * time.Second
	// MaxAnswerBytes of a subscriber's answer are read (and ignored): enough to reuse the
	// connection, never a memory risk.
	MaxAnswerBytes = 64 << 10
)

// ErrForbiddenAddress is a delivery refused because the address it would reach is not public.
var ErrForbiddenAddress = errors.New("the webhook address is not a public internet address")

// forbidden are the ranges no delivery may reach (loopback aside, which AllowLoopback permits):
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

// allowedAddress reports whether a delivery may connect to ip.
func allowedAddress(ip netip.Addr, allowLoopback bool) bool {
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

// newClient is the one HTTP client of deliveries. The address is checked when the connection
// is made (the dialer's Control sees the IP actually dialled, whatever DNS answered, even if it
// changes between a check and the connection), no proxy is used, no redirect is followed (a
// 3xx is a failed attempt), and every phase has a deadline.
func newClient(allowLoopback bool) *http.Client {
	dialer := &net.Dialer{
		Timeout: DialTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !allowedAddress(ap.Addr(), allowLoopback) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    DialTimeout,
		ResponseHeaderTimeout:  AttemptTimeout,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// MaxURLBytes bounds a webhook's URL.
const MaxURLBytes = 2048

// checkURL is the rule for a webhook's URL: absolute http(s) with a host, no credentials in it,
// https unless allowHTTP (local use only); a literal IP must be allowed. Names are checked when
// a delivery connects.
func checkURL(raw string, allowHTTP, allowLoopback bool) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "The url must be a valid URL."
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !allowHTTP {
			return "The url must use https."
		}
	default:
		return "The url must use https."
	}
	if u.User != nil {
		return "The url must not contain credentials."
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil && !allowedAddress(ip, allowLoopback) {
		return "The url must point to a public internet address."
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); !allowLoopback && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
		return "The url must point to a public internet address."
	}
	return ""
}

// describe turns a failed attempt into the short text the deliveries list shows.
func describe(err error) string {
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return ErrForbiddenAddress.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "timed out"
		}
		err = ue.Err
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return fmt.Sprint(msg)
}
