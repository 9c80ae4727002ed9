package netguard_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/netguard"
	"github.com/lorekeep/lorekeep/shared/testing/guardtest"
)

// literal answers the address a URL host spells as an IP literal (brackets and the zone's %25
// undone), if it is one netip reads.
func literal(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	h = strings.ReplaceAll(h, "%25", "%")
	ip, err := netip.ParseAddr(h)
	return ip, err == nil
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	type row struct {
		ip             string
		loopback, want bool
	}
	rows := []row{
		{"::ffff:127.0.0.1", true, true}, // dialled as 127.0.0.1
		{"::127.0.0.1", true, false},     // IPv4-compatible is not loopback
		{"::1%lo", true, false},
		{"1.1.1.1", false, true},
		{"2000::1", false, true},
		{"3ffe::1", false, true},
		{"3fff:1000::1", false, true}, // just past 3fff::/20
		{"1fff:ffff::1", false, false},
		{"2001:1ff::1", false, false}, // the end of 2001::/23
		{"2001:db8:ffff::1", false, false},
		{"5f00:1::1", false, false},
		{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, false},
	}
	for _, h := range guardtest.Hostile {
		if ip, ok := literal(h.Host); ok {
			rows = append(rows, row{ip.String(), false, false}, row{ip.String(), true, false})
		}
	}
	for _, h := range guardtest.Loopback {
		if ip, ok := literal(h.Host); ok {
			rows = append(rows, row{ip.String(), false, false}, row{ip.String(), true, true})
		}
	}
	for _, h := range guardtest.Public {
		if ip, ok := literal(h.Host); ok {
			rows = append(rows, row{ip.String(), false, true}, row{ip.String(), true, true})
		}
	}
	if len(rows) < 80 {
		t.Fatalf("only %d rows", len(rows))
	}
	for _, r := range rows {
		if got := netguard.Allowed(netip.MustParseAddr(r.ip), r.loopback); got != r.want {
			t.Errorf("Allowed(%s, loopback %v) = %v, want %v", r.ip, r.loopback, got, r.want)
		}
	}
	if netguard.Allowed(netip.Addr{}, true) {
		t.Error("the zero Addr is allowed")
	}
}

// Every hostile spelling is refused with loopback allowed or not, loopback only when it is not
// allowed, public addresses and names never.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, h := range guardtest.Hostile {
		for _, loopback := range []bool{false, true} {
			u := "http://" + h.Host + "/latest/meta-data/"
			if msg := netguard.CheckURL(u, true, loopback); msg == "" {
				t.Errorf("%s (%s), loopback %v: accepted", u, h.Denotes, loopback)
			}
		}
	}
	for _, h := range guardtest.Loopback {
		u := "https://" + h.Host + ":8443/hook"
		if msg := netguard.CheckURL(u, false, false); msg != "must point to a public internet address." {
			t.Errorf("%s (%s): %q", u, h.Denotes, msg)
		}
		if msg := netguard.CheckURL(u, false, true); msg != "" {
			t.Errorf("%s (%s), loopback allowed: %q", u, h.Denotes, msg)
		}
	}
	for _, h := range guardtest.Public {
		u := "https://" + h.Host + "/pic.png"
		if msg := netguard.CheckURL(u, false, false); msg != "" {
			t.Errorf("%s (%s): %q", u, h.Denotes, msg)
		}
	}
}

func TestCheckURLMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"http://2852039166/", "must write an IP address in the usual way (like 93.184.216.34, or [2606:4700::1111])."},
		{"http://0251.0376.0251.0376/", "must write an IP address in the usual way (like 93.184.216.34, or [2606:4700::1111])."},
		{"http://127.1/", "must write an IP address in the usual way (like 93.184.216.34, or [2606:4700::1111])."},
		{"https://93.184.216.34./", "must write an IP address in the usual way (like 93.184.216.34, or [2606:4700::1111])."},
		{"http://１２７.０.０.１/", "must write its host name in ASCII (an international name as xn--...)."},
		{"http://bücher.example/", "must write its host name in ASCII (an international name as xn--...)."},
		{"http://[::169.254.169.254]/latest/meta-data/", "must point to a public internet address."},
		{"http://[fec0::1]/", "must point to a public internet address."},
		{"http://[fe80::1%25eth0]/", "must point to a public internet address."},
		{"http://example.com/", "must use https."},
		{"https://u:p@example.com/", "must not contain credentials."},
		{"//example.com/", "must be a valid URL."},
		{"https://93.184.216.34/", ""},
	} {
		if got := netguard.CheckURL(c.url, c.url != "http://example.com/", false); got != c.want {
			t.Errorf("CheckURL(%s) = %q, want %q", c.url, got, c.want)
		}
	}
}

// The dial-time check refuses every non-public address, whatever the URL rule let through: a
// name resolving to loopback, and each literal the URL rule refuses (never reached: the
// check runs before the connection is made).
func TestClientRefusesAtDialTime(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	c := netguard.Client(false, 2*time.Second, 0)
	forbidden := []string{"http://localhost:" + port + "/", srv.URL + "/", "http://[::ffff:127.0.0.1]:" + port + "/"}
	for _, hs := range [][]guardtest.Host{guardtest.Hostile, guardtest.Loopback} {
		for _, h := range hs {
			if _, ok := literal(h.Host); ok && !strings.Contains(h.Host, "%") {
				forbidden = append(forbidden, "http://"+h.Host+":"+port+"/")
			}
		}
	}
	for _, u := range forbidden {
		res, err := c.Get(u)
		if err == nil {
			res.Body.Close()
		}
		if !errors.Is(err, netguard.ErrForbiddenAddress) {
			t.Errorf("GET %s: %v, want ErrForbiddenAddress", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server on loopback got %d requests", n)
	}
	// With loopback allowed, the same client reaches it (the refusals above are the guard's).
	res, err := netguard.Client(true, 2*time.Second, 0).Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if n := hits.Load(); n != 1 {
		t.Errorf("the server got %d requests, want 1", n)
	}
}

// inetAton reads s as the C library's inet_aton does (which getaddrinfo, and so Go's cgo
// resolver, applies to a name): one to four numbers, each decimal, octal (leading 0) or hex
// (0x), the last filling the remaining bytes.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		v, err := strconv.ParseUint(p, 0, 32)
		if p == "" || err != nil || strings.ContainsAny(p, "_oObB") {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(32-8*(len(vals)-1)) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func TestInetAton(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2852039166", "0251.0376.0251.0376", "0xa9fea9fe", "169.254.43518", "169.16689662", "0xa9.0xfe.0xa9.0xfe"} {
		if ip, ok := inetAton(s); !ok || ip.String() != "169.254.169.254" {
			t.Errorf("inetAton(%s) = %v, %v", s, ip, ok)
		}
	}
	for _, s := range []string{"example.com", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "08.1.1.1", ""} {
		if ip, ok := inetAton(s); ok {
			t.Errorf("inetAton(%s) = %v", s, ip)
		}
	}
}

// Whatever CheckURL accepts names an allowed address when its host is an address in any
// spelling Go or the C library reads, and is accepted with loopback allowed too.
func FuzzCheckURL(f *testing.F) {
	for _, hs := range [][]guardtest.Host{guardtest.Hostile, guardtest.Loopback, guardtest.Public} {
		for _, h := range hs {
			f.Add("https://" + h.Host + "/x")
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if netguard.CheckURL(raw, true, false) != "" {
			return
		}
		if netguard.CheckURL(raw, true, true) != "" {
			t.Fatalf("%q: accepted without loopback, refused with it", raw)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q: accepted, but url.Parse: %v", raw, err)
		}
		host := u.Hostname()
		for i := 0; i < len(host); i++ {
			if host[i] >= 0x80 {
				t.Fatalf("%q: accepted a host that is not ASCII (IDNA may map it to an address)", raw)
			}
		}
		if ip, err := netip.ParseAddr(host); err == nil && !netguard.Allowed(ip, false) {
			t.Fatalf("%q: accepted %s", raw, ip)
		}
		if ip, ok := inetAton(strings.TrimSuffix(host, ".")); ok && (ip.String() != host || !netguard.Allowed(ip, false)) {
			t.Fatalf("%q: accepted host %q, which the C library reads as %s", raw, host, ip)
		}
	})
}
