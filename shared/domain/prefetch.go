package domain

import (
	"context"
	"sync"
)

// Ref names a record (or a list's counts) that a route will read, so that it can be read
// ahead, together with the campaign and the caller's membership, in one round trip. Kind is a
// store kind ("location", "calendar", "entity", "mappoint", "note", "event"), or "list:" and a
// kind for a list's counts; Parent is the location or entity a map point, note or event (or
// their list) hangs from.
type Ref struct {
	Kind   string
	ID     int64
	Parent int64
}

// Prefetch holds what was read ahead for one request, by storage key. Each entry is handed out
// once: a write that retries on a conflict reads fresh data the second time.
type Prefetch struct {
	mu    sync.Mutex
	items map[string]any // nil value: read ahead and absent
}

type prefetchKey struct{}

// WithPrefetch returns a context carrying an empty Prefetch for the request.
func WithPrefetch(ctx context.Context) (context.Context, *Prefetch) {
	p := &Prefetch{items: map[string]any{}}
	return context.WithValue(ctx, prefetchKey{}, p), p
}

// PrefetchOf is the request's Prefetch, or nil.
func PrefetchOf(ctx context.Context) *Prefetch {
	p, _ := ctx.Value(prefetchKey{}).(*Prefetch)
	return p
}

// Put records what was read ahead under key (nil: absent).
func (p *Prefetch) Put(key string, v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items[key] = v
}

// Peek is the entry of key, left for later readers: for what a request only reads (counts).
func (p *Prefetch) Peek(key string) (v any, ok bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok = p.items[key]
	return v, ok
}

// Take hands out the entry of key once: ok is false when it was not read ahead (or was taken).
func (p *Prefetch) Take(key string) (v any, ok bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok = p.items[key]
	delete(p.items, key)
	return v, ok
}
