package entitynotes

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the entity notes family uses (notestore serves it).
type Store interface {
	httpapi.GoneReader
	httpapi.EntityReader
	httpapi.EntityBatchReader
	GetNoteAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Note, error)
	ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Note], error)
	CreateNote(ctx context.Context, n *domain.Note) error
	UpdateNote(ctx context.Context, prev, next *domain.Note) error
	DeleteNote(ctx context.Context, n *domain.Note) error
}
