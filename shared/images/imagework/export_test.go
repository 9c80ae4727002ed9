package imagework

import (
	"github.com/lorekeep/lorekeep/shared/images/imageproc"
	"github.com/lorekeep/lorekeep/shared/netguard"
)

// SetProcess replaces the image processing for a test; the returned func restores it.
func SetProcess(f func([]byte) (imageproc.Result, error)) func() {
	prev := processFile
	processFile = f
	return func() { processFile = prev }
}

// NewDialGuarded is New whose URL rule follows o but whose client refuses loopback: the
// dial-time check alone stands between a fetch and a server on loopback.
func NewDialGuarded(b Bucket, q Queue, o Options) *Worker {
	w := New(b, q, o)
	w.client = netguard.Client(false, FetchTimeout, MaxRedirects)
	return w
}
