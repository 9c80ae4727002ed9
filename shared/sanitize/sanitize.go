// Package sanitize is the one place that depends on the HTML sanitiser (bluemonday): stored
// entries are made safe to render in a client here, by one policy.
package sanitize

import (
	"sync"

	"github.com/microcosm-cc/bluemonday"
)

// policy keeps ordinary formatting, links and images and drops scripts, event handlers,
// javascript: URLs, inline styles and classes (a client's CSS could hide content by class). It
// is built on first use, not at cold start: most requests (and the authorizer) never sanitise.
// Policies are safe for concurrent use.
var policy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("title").Globally()
	p.RequireNoFollowOnLinks(false)
	return p
})

// HTML makes stored HTML safe to render in a client.
func HTML(s string) string {
	if s == "" {
		return s
	}
	return policy().Sanitize(s)
}
