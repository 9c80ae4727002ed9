// Package related answers ?related=1 on calendars and locations (DESIGN.md 9): the arrays
// Kanka's EntityResource embeds, filled with what Lorekeep stores (posts, entity events and
// reminders of the record's entity, and the posts again as entity_notes for 2022 clients; its
// attributes and relations; a location's parents and children) and empty for what it does not
// (inventory, abilities, assets). Only what the caller may see
// is embedded, rendered by the one render of each shape.
package related

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/attributes/attrwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notewire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/relations/relwire"
)

// Arrays is embedded (as a pointer, nil unless asked) in a calendar's or location's JSON.
type Arrays struct {
	Attributes []any `json:"attributes"`
	Posts      []any `json:"posts"`
	// EntityNotes are the posts in the 2022 shape, under the name Kanka used then.
	EntityNotes     []any `json:"entity_notes"`
	EntityEvents    []any `json:"entity_events"`
	Reminders       []any `json:"reminders"`
	Relations       []any `json:"relations"`
	Inventory       []any `json:"inventory"`
	EntityAbilities []any `json:"entity_abilities"`
	EntityAssets    []any `json:"entity_assets"`
	// Locations only: ancestor ids nearest first, and direct children ids.
	Parents  *[]int64 `json:"parents,omitempty"`
	Children *[]int64 `json:"children,omitempty"`
}

// Subject is a record whose related arrays are asked for: its id, the entity it owns, and the
// location itself when it is one.
type Subject struct {
	ID       int64
	EntityID int64
	Location *domain.Location
}

// Locations and Calendars are the subjects of records.
func Locations(ls []domain.Location) []Subject {
	out := make([]Subject, len(ls))
	for i := range ls {
		out[i] = Subject{ID: ls[i].ID, EntityID: ls[i].EntityID, Location: &ls[i]}
	}
	return out
}

// Tags: see Locations (their parents and children are not embedded).
func Tags(ts []domain.Tag) []Subject {
	out := make([]Subject, len(ts))
	for i := range ts {
		out[i] = Subject{ID: ts[i].ID, EntityID: ts[i].EntityID}
	}
	return out
}

// Calendars: see Locations.
func Calendars(cs []timeline.Calendar) []Subject {
	out := make([]Subject, len(cs))
	for i := range cs {
		out[i] = Subject{ID: cs[i].ID, EntityID: cs[i].EntityID}
	}
	return out
}

// ByID loads the related arrays of subjects, by record id, when the client asked for them
// (?related=1); otherwise the map is empty and nothing is read.
func ByID(r *httpapi.Request, st Store, subjects []Subject) (map[int64]*Arrays, error) {
	out := map[int64]*Arrays{}
	on, err := r.Related()
	if err != nil || !on {
		return out, err
	}
	arrays, err := Load(r, st, subjects)
	for i, a := range arrays {
		out[subjects[i].ID] = a
	}
	return out, err
}

// Concurrency bounds the reads of one request in flight at once.
const Concurrency = 10

// Load reads and renders the related arrays of subjects (one record, or one page of a list).
// Every read of every subject runs concurrently, at most Concurrency at once: the caller's
// ranges of each entity's partition (3 Queries for an admin, 2 for anyone else) and each
// location's child links (1 Query; their privacy, for non-admins, one read for the page, usually
// read ahead); ancestors level by level, one batch per level for the whole page (the page's own
// rows need no read); then the entities every post mentions, one batch. So a page of n
// locations costs 4n Queries for an admin (3n for others) in parallel, plus its tree's depth in
// batches, plus one for mentions.
func Load(r *httpapi.Request, st Store, subjects []Subject) ([]*Arrays, error) {
	res := make([]related, len(subjects))
	parents := make([][]int64, len(subjects))
	ctx, a := r.Context(), r.Access
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(Concurrency)
	g.Go(func() error {
		var err error
		parents, err = ancestors(gctx, st, a, subjects)
		return err
	})
	// Attributes and relations: one batch of packs and one Query per related bucket, for the
	// whole page.
	eids := make([]int64, len(subjects))
	for i, s := range subjects {
		eids[i] = s.EntityID
	}
	var attrs map[int64][]domain.Attribute
	var rels map[int64][]domain.Relation
	g.Go(func() error {
		var err error
		attrs, err = st.AttributesOf(gctx, a.CampaignID, eids)
		return err
	})
	g.Go(func() error {
		var err error
		rels, err = st.RelationsOf(gctx, a.CampaignID, eids)
		return err
	})
	var mu sync.Mutex
	for i, s := range subjects {
		for _, read := range st.VisibleNotesAndEvents(a.CampaignID, s.EntityID, a) {
			g.Go(func() error {
				notes, evs, err := read(gctx)
				mu.Lock()
				defer mu.Unlock()
				res[i].notes, res[i].events = append(res[i].notes, notes...), append(res[i].events, evs...)
				return err
			})
		}
		if s.Location != nil {
			g.Go(func() error {
				var err error
				res[i].children, err = st.ChildLocationIDs(gctx, a.CampaignID, s.Location.ID, !a.CanSee(true))
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i := range res { // several ranges each: id order
		slices.SortFunc(res[i].notes, func(x, y domain.Note) int { return cmp.Compare(x.ID, y.ID) })
		slices.SortFunc(res[i].events, func(x, y timeline.Event) int { return cmp.Compare(x.ID, y.ID) })
	}

	var notes []domain.Note
	for _, f := range res {
		notes = append(notes, f.notes...)
	}
	entityNotes, posts, err := notewire.Embedded(r, st, notes)
	if err != nil {
		return nil, err
	}
	out := make([]*Arrays, len(subjects))
	for i, s := range subjects {
		f := res[i]
		n := len(f.notes)
		j := &Arrays{Attributes: attrwire.Embedded(a.VisibleAttributes(attrs[s.EntityID])), Posts: posts[:n:n], EntityNotes: entityNotes[:n:n],
			EntityEvents: eventwire.RenderEvents(f.events), Reminders: eventwire.RenderReminders(f.events),
			Relations: relwire.Embedded(a, rels[s.EntityID]), Inventory: []any{}, EntityAbilities: []any{}, EntityAssets: []any{}}
		posts, entityNotes = posts[n:], entityNotes[n:]
		if s.Location != nil {
			children := append([]int64{}, f.children...)
			j.Parents, j.Children = &parents[i], &children
		}
		out[i] = j
	}
	return out, nil
}

// related is what one subject's arrays are made of.
type related struct {
	notes    []domain.Note
	events   []timeline.Event
	children []int64
}

// ancestors answers each location subject's visible ancestors, nearest first.
func ancestors(ctx context.Context, st Store, a domain.Access, subjects []Subject) ([][]int64, error) {
	links := map[int64]domain.AncestorLink{}
	for _, s := range subjects {
		if l := s.Location; l != nil {
			links[l.ID] = domain.AncestorLink{ID: l.ID, IsPrivate: l.IsPrivate, ParentID: l.ParentID}
		}
	}
	out := make([][]int64, len(subjects))
	for level := 0; ; level++ {
		var missing []int64
		for i, s := range subjects {
			if s.Location == nil {
				continue
			}
			var m int64
			out[i], m = domain.Ancestors(s.Location.ParentID, links, a)
			if m != 0 {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 || level == domain.MaxLocationDepth {
			return out, nil
		}
		got, err := st.LocationLinks(ctx, a.CampaignID, missing)
		if err != nil {
			return nil, err
		}
		for _, id := range missing {
			links[id] = got[id] // the zero link marks one that is gone
		}
	}
}
