package httpapi

import "github.com/lorekeep/lorekeep/shared/domain"

// SetRenderMentions replaces the mention renderer of entry_parsed until restore is called.
func SetRenderMentions(f func(string, map[int64]*domain.Entity, domain.Access) string) (restore func()) {
	old := renderMentions
	renderMentions = f
	return func() { renderMentions = old }
}

// PageTail is what follows a page's rows (links, meta, sync), for its encoder's test.
type PageTail = pageTail
