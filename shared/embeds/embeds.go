// Package embeds answers ?related=1 on the owner kinds (DESIGN.md 9): the arrays
// Kanka's EntityResource embeds, filled with what Lorekeep stores (posts, entity events and
// reminders of the record's entity, and the posts again as entity_notes for 2022 clients; its
// attributes and relations; a location's parents and children) and empty for what it does not
// (inventory, abilities, assets). Only what the caller may see
// is embedded, rendered by the one render of each shape.
package embeds

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/attributes/attrwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityabilities"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notewire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/inventory"
	"github.com/lorekeep/lorekeep/shared/relations/relwire"
	"github.com/lorekeep/lorekeep/shared/telemetry"
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
	// Refs are the record's references, which hold its inventory (no read needed).
	Refs []domain.Reference
}

// Locations and Calendars are the subjects of records.
func Locations(ls []domain.Location) []Subject {
	out := make([]Subject, len(ls))
	for i := range ls {
		out[i] = Subject{ID: ls[i].ID, EntityID: ls[i].EntityID, Location: &ls[i], Refs: ls[i].Refs}
	}
	return out
}

// Tags: see Locations (their parents and children are not embedded).
func Tags(ts []domain.Tag) []Subject {
	out := make([]Subject, len(ts))
	for i := range ts {
		out[i] = Subject{ID: ts[i].ID, EntityID: ts[i].EntityID, Refs: ts[i].Refs}
	}
	return out
}

// Maps: see Locations (their parents and children are not embedded).
func Maps(ms []domain.Map) []Subject {
	out := make([]Subject, len(ms))
	for i := range ms {
		out[i] = Subject{ID: ms[i].ID, EntityID: ms[i].EntityID, Refs: ms[i].Refs}
	}
	return out
}

// Calendars: see Locations.
func Calendars(cs []timeline.Calendar) []Subject {
	out := make([]Subject, len(cs))
	for i := range cs {
		out[i] = Subject{ID: cs[i].ID, EntityID: cs[i].EntityID, Refs: cs[i].Refs}
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

// Load reads and renders the related arrays of subjects (one record, or one page of a list):
// the notes, events and relations of their entities and the child links of the locations from
// their related buckets (one Query per bucket: one or two for a page of neighbouring ids), the
// attribute packs in one batch and the ancestors level by level (one batch per level for the
// whole page, the page's own rows need no read), all concurrently; then the entities the posts
// mention, one batch. Round trips: max(buckets/10, levels, 1) + 1, whatever the page size.
// What the caller may not see is left out here, by the rules its list ranges apply.
func Load(r *httpapi.Request, st Store, subjects []Subject) ([]*Arrays, error) {
	ctx, a := r.Context(), r.Access
	g, gctx := errgroup.WithContext(telemetry.Fanout(ctx)) // the three reads are one round trip
	var parents [][]int64
	g.Go(func() error {
		var err error
		parents, err = ancestors(gctx, st, a, subjects)
		return err
	})
	eids := make([]int64, len(subjects))
	var lids []int64
	for i, s := range subjects {
		eids[i] = s.EntityID
		if s.Location != nil {
			lids = append(lids, s.Location.ID)
		}
	}
	var attrs map[int64][]domain.Attribute
	g.Go(func() error {
		var err error
		attrs, err = st.AttributesOf(gctx, a.CampaignID, eids)
		return err
	})
	var rel timeline.Related
	g.Go(func() error {
		var err error
		rel, err = st.RelatedOf(gctx, a.CampaignID, eids, lids)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := make([]related, len(subjects))
	var notes []domain.Note
	for i, s := range subjects {
		res[i].notes, res[i].events = rel.VisibleNotes(s.EntityID, a), rel.VisibleEvents(s.EntityID, a)
		if s.Location != nil {
			res[i].children = rel.VisibleChildren(s.Location.ID, a)
		}
		notes = append(notes, res[i].notes...)
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
			Relations: relwire.Embedded(a, rel.Relations[s.EntityID]), Inventory: inventory.Render(a, s.EntityID, s.Refs), EntityAbilities: entityabilities.Render(a, s.Refs), EntityAssets: []any{}}
		posts, entityNotes = posts[n:], entityNotes[n:]
		if s.Location != nil {
			j.Parents, j.Children = &parents[i], &f.children
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
		if level > 0 { // a level after the first waits for the one before: a round trip of its own
			ctx = telemetry.Fanout(ctx)
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
