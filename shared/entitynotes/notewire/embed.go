package notewire

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Embedded shapes notes as the entity_notes and the posts routes answer them, for the
// records that embed them (?related=1): the one render of notes. The entities all of them
// mention are read in one batch.
func Embedded(r *httpapi.Request, entities httpapi.EntityBatchReader, notes []domain.Note) (entityNotes, posts []any, err error) {
	out, err := Render(r, entities, notes...)
	if err != nil {
		return nil, nil, err
	}
	entityNotes, posts = make([]any, len(out)), make([]any, len(out))
	for i, n := range out {
		entityNotes[i], posts[i] = n, AsPost(n)
	}
	return entityNotes, posts, nil
}
