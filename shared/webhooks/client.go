package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/lorekeep/lorekeep/shared/netguard"
)

// Delivery bounds: every attempt ends within AttemptTimeout, whatever the subscriber does.
const (
	DialTimeout    = netguard.DialTimeout
	AttemptTimeout = 10 * time.Second
	// MaxAnswerBytes of a subscriber's answer are read (and ignored): enough to reuse the
	// connection, never a memory risk.
	MaxAnswerBytes = 64 << 10
)

// ErrForbiddenAddress is a delivery refused because the address it would reach is not public.
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// allowedAddress is the shared guard's rule (netguard), as deliveries apply it.
func allowedAddress(ip netip.Addr, allowLoopback bool) bool {
	return netguard.Allowed(ip, allowLoopback)
}

// newClient is the one HTTP client of deliveries: the shared guard's (netguard), with no
// redirect followed (a 3xx is a failed attempt).
func newClient(allowLoopback bool) *http.Client {
	return netguard.Client(allowLoopback, AttemptTimeout, 0)
}

// MaxURLBytes bounds a webhook's URL.
const MaxURLBytes = 2048

// checkURL is the rule for a webhook's URL (netguard.CheckURL), as a message about `url`.
func checkURL(raw string, allowHTTP, allowLoopback bool) string {
	if msg := netguard.CheckURL(raw, allowHTTP, allowLoopback); msg != "" {
		return "The url " + msg
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
