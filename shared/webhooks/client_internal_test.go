package webhooks

import (
	"net/netip"
	"testing"
)

func TestAllowedAddress(t *testing.T) {
	for _, c := range []struct {
		ip             string
		loopback, want bool
	}{
		{"93.184.216.34", false, true},
		{"2606:2800:220:1:248:1893:25c8:1946", false, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1", true, true},
		{"::1", false, false},
		{"::1", true, true},
		{"::ffff:127.0.0.1", false, false},
		{"10.0.0.1", true, false},
		{"172.16.5.4", true, false},
		{"192.168.1.1", true, false},
		{"100.64.0.1", true, false},
		{"169.254.169.254", true, false},
		{"::ffff:169.254.169.254", true, false},
		{"fd00:ec2::254", true, false},
		{"fe80::1", true, false},
		{"0.0.0.0", true, false},
		{"::", true, false},
		{"224.0.0.1", true, false},
		{"255.255.255.255", true, false},
		{"64:ff9b::a9fe:a9fe", true, false},
	} {
		if got := allowedAddress(netip.MustParseAddr(c.ip), c.loopback); got != c.want {
			t.Errorf("allowedAddress(%s, loopback %v) = %v, want %v", c.ip, c.loopback, got, c.want)
		}
	}
}
