package entitynotes

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// RenderPosts shapes notes as their own routes answer them, for the records that embed them
// (?related=1): the one render of notes. The entities all of them mention are read in one batch.
func RenderPosts(r *httpapi.Request, st *store.Store, notes []domain.Note) ([]any, error) {
	out, err := handlers{st: st}.render(r, notes...)
	if err != nil {
		return nil, err
	}
	return asAny(out), nil
}

func asAny[T any](items []T) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}
