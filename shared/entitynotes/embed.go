package entitynotes

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// RenderPosts shapes notes as the posts route answers them, for the records that embed them
// (?related=1): the one render of notes. The entities all of them mention are read in one batch.
func RenderPosts(r *httpapi.Request, st *store.Store, notes []domain.Note) ([]any, error) {
	out, err := handlers{st: st}.render(r, notes...)
	if err != nil {
		return nil, err
	}
	posts := make([]any, len(out))
	for i, n := range out {
		posts[i] = asPost(n)
	}
	return posts, nil
}
