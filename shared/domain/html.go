package domain

import "github.com/microcosm-cc/bluemonday"

// htmlPolicy keeps ordinary formatting, links and images and drops scripts, event handlers,
// javascript: URLs and inline styles. Built once: policies are safe for concurrent use.
var htmlPolicy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Globally()
	p.AllowAttrs("data-mention", "data-toggle", "title").Globally()
	p.RequireNoFollowOnLinks(false)
	return p
}()

// SanitizeHTML makes stored HTML safe to render in a client.
func SanitizeHTML(s string) string {
	if s == "" {
		return s
	}
	return htmlPolicy.Sanitize(s)
}
