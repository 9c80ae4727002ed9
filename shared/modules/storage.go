package modules

import (
	"context"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
)

// item is a module record's home: the kernel's attributes, its parent, status and own fields.
type item struct {
	store.MetaAttrs
	store.OwnerAttrs
	ParentID *int64            `dynamo:"parent_id,omitempty"`
	StatusID *int64            `dynamo:"status_id,omitempty"`
	Text     map[string]string `dynamo:"text,omitempty"`
	// TextLC: the text fields lower-cased, for the list's filters on them (store.FieldsLC).
	TextLC map[string]string `dynamo:"text_lc,omitempty"`
	Flags  map[string]bool   `dynamo:"flags,omitempty"`
	Traits []traitAttr       `dynamo:"traits,omitempty"`
	// ParentHidden: the parent is private, so the public copy leaves it out.
	ParentHidden bool `dynamo:"parent_hidden,omitempty"`
}

func (k declared) item(r *Record) item {
	meta, owner := store.OwnerHome(k.Kind, r.Meta, r.Owner)
	var lc map[string]string
	for name, v := range r.Text {
		if lc == nil {
			lc = map[string]string{}
		}
		lc[name] = strings.ToLower(v)
	}
	var traits []traitAttr
	for _, t := range r.Traits {
		traits = append(traits, traitAttr(t))
	}
	return item{MetaAttrs: meta, OwnerAttrs: owner, ParentID: r.ParentID, StatusID: r.StatusID, Text: r.Text, TextLC: lc, Flags: r.Flags,
		Traits: traits, ParentHidden: r.ParentID != nil && r.ParentPrivate}
}

func (k declared) record(it item) Record {
	var traits []Trait
	for _, t := range it.Traits {
		traits = append(traits, Trait(t))
	}
	return Record{Meta: it.Meta(), Owner: it.Owner(), Module: k.Module.Code, ParentID: it.ParentID, StatusID: it.StatusID,
		Text: it.Text, Flags: it.Flags, Traits: traits}
}

// traitAttr is a trait as its record's item keeps it.
type traitAttr struct {
	ID      int64  `dynamo:"id"`
	Name    string `dynamo:"name"`
	Entry   string `dynamo:"entry,omitempty"`
	Section int    `dynamo:"section"`
	Order   int    `dynamo:"order"`
}

// storage is a module's storage on the kernel: a nested owner kind, or an owner kind for a
// module whose records do not nest (characters).
type storage struct {
	k      declared
	st     *store.Store
	nested store.NestedKind[Record, item]
	flat   store.OwnerKind[Record, item]
}

func newStorage(k declared, st *store.Store) *storage {
	s := &storage{k: k, st: st}
	s.nested = store.NestedKind[Record, item]{Kind: k.Kind, Item: k.item, Record: k.record, Trashed: true,
		Of: func(r *Record) store.Nested {
			return store.Nested{Meta: &r.Meta, Owner: &r.Owner, ParentID: r.ParentID, Ancestry: &r.Ancestry, ParentPrivate: &r.ParentPrivate}
		}}
	s.flat = store.OwnerKind[Record, item]{Kind: k.Kind, Item: k.item, Record: k.record, Trashed: true,
		Of: func(r *Record) (*domain.Meta, *domain.Owner) { return &r.Meta, &r.Owner }}
	return s
}

func (s *storage) get(ctx context.Context, cid, id int64) (*Record, error) {
	if s.k.Module.Nested {
		return s.nested.Get(ctx, s.st, cid, id)
	}
	return s.flat.Get(ctx, s.st, cid, id)
}

func (s *storage) list(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[Record], error) {
	if s.k.Module.Nested {
		return s.nested.List(ctx, s.st, cid, f, hidePrivate, p)
	}
	return s.flat.List(ctx, s.st, cid, f, hidePrivate, p)
}

func (s *storage) create(ctx context.Context, r *Record) error {
	if s.k.Module.Nested {
		return s.nested.Create(ctx, s.st, r)
	}
	return s.flat.Create(ctx, s.st, r)
}

func (s *storage) update(ctx context.Context, prev, next *Record) error {
	if s.k.Module.Nested {
		return s.nested.Update(ctx, s.st, prev, next)
	}
	return s.flat.Update(ctx, s.st, prev, next)
}

func (s *storage) delete(ctx context.Context, r *Record) error {
	if s.k.Module.Nested {
		return s.nested.Delete(ctx, s.st, r)
	}
	return s.flat.Delete(ctx, s.st, r)
}

func (s *storage) resume(ctx context.Context, cid, id int64) (bool, error) {
	if s.k.Module.Nested {
		return s.nested.ResumeDelete(ctx, s.st, cid, id)
	}
	return s.flat.ResumeDelete(ctx, s.st, cid, id)
}

func (s *storage) ancestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return s.nested.Ancestry(ctx, s.st, cid, id, max)
}
