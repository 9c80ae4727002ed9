package domain

import (
	"sync"

	"github.com/microcosm-cc/bluemonday"
)

// htmlPolicy keeps ordinary formatting, links and images and drops scripts, event handlers,
// javascript: URLs, inline styles and classes (a client's CSS could hide content by class). It is built on first use, not at cold start: most
// requests (and the authorizer) never sanitise. Policies are safe for concurrent use.
var htmlPolicy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("title").Globally()
	p.RequireNoFollowOnLinks(false)
	return p
})

// SanitizeHTML makes stored HTML safe to render in a client.
func SanitizeHTML(s string) string {
	if s == "" {
		return s
	}
	return htmlPolicy().Sanitize(s)
}
