// Package entityabilities is Kanka's entity abilities (entities/{entity}/entity_abilities): the
// abilities an entity has, each with the charges used, a position, a note and a visibility.
// Like an inventory line, each is one of the kernel's references of the entity's record (field
// `entity_abilities`, a row of its own by its id), so an ability's trash hides it, its restore
// shows it, its privacy change re-places it and its purge drops it, and the record's
// `related=1` answers them without a read.
package entityabilities

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityrows"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Field is the references' field the rows are kept under; AbilityType the module they name.
const (
	Field       = "entity_abilities"
	AbilityType = "ability"
	sequence    = "entity_ability"
	// Kanka's columns: charges a signed tinyint, position 0..100 (its rule), the note text.
	minCharges, maxCharges = -128, 127
	maxPosition            = 100
	maxNote                = 1000
)

// Row is Kanka's EntityAbilityResource (it answers no entity_id).
type Row struct {
	ID           int64   `json:"id"`
	AbilityID    int64   `json:"ability_id"`
	Charges      *int64  `json:"charges"`
	Position     int64   `json:"position"`
	Note         *string `json:"note"`
	VisibilityID int     `json:"visibility_id"`
	CreatedAt    string  `json:"created_at"`
	CreatedBy    *int64  `json:"created_by"`
	UpdatedAt    string  `json:"updated_at"`
	UpdatedBy    *int64  `json:"updated_by"`
}

// row is an entity ability as its reference holds it.
type row struct {
	ref        domain.Reference
	charges    *int64
	position   int64
	note       string
	visibility domain.Visibility
	createdBy  int64
	created    string
	updated    string
}

func rowOf(r domain.Reference) row {
	d := r.Data
	x := row{ref: r, position: num(d["position"]), createdBy: num(d["created_by"])}
	x.note, _ = d["note"].(string)
	x.created, _ = d["created_at"].(string)
	x.updated, _ = d["updated_at"].(string)
	if v, ok := d["charges"]; ok {
		n := num(v)
		x.charges = &n
	}
	x.visibility, _ = domain.ParseVisibility(fmt.Sprint(num(d["visibility_id"])))
	return x
}

func num(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	}
	return 0
}

func (x row) data() map[string]any {
	d := map[string]any{"position": x.position, "visibility_id": int64(x.visibility.ID()), "created_at": x.created,
		"updated_at": x.updated, "created_by": x.createdBy}
	if x.note != "" {
		d["note"] = x.note
	}
	if x.charges != nil {
		d["charges"] = *x.charges
	}
	return d
}

func (x row) json() Row {
	j := Row{ID: x.ref.Key, AbilityID: x.ref.ID, Charges: x.charges, Position: x.position, VisibilityID: x.visibility.ID(),
		CreatedAt: x.created, UpdatedAt: x.updated}
	if x.note != "" {
		n := x.note
		j.Note = &n
	}
	if x.createdBy != 0 {
		by := x.createdBy
		j.CreatedBy = &by
	}
	return j
}

// visible are the rows of refs the caller may see, by position then id: by their visibility,
// and never one naming an ability in the trash or, to non-admins, a private one.
func visible(a domain.Access, refs []domain.Reference) []row {
	var out []row
	for _, r := range domain.RefsOf(refs, Field, a.IsAdmin()) {
		if x := rowOf(r); a.CanSeeVisibility(x.visibility, x.createdBy) {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b row) int {
		if a.position != b.position {
			return int(a.position - b.position)
		}
		return int(a.ref.Key - b.ref.Key)
	})
	return out
}

// Render is the entity abilities of a record as related=1 answers them to the caller.
func Render(a domain.Access, refs []domain.Reference) []any {
	out := []any{}
	for _, x := range visible(a, refs) {
		out = append(out, x.json())
	}
	return out
}

// Register mounts entities/{entity_id}/entity_abilities and its rows.
func Register(api *httpapi.API, st *store.Store) {
	h := handlers{refs: store.ReferencesOf(st)}
	collection := "/entities/{entity_id}/entity_abilities"
	item := collection + "/{id}"
	httpapi.MountList(api, collection, httpapi.List[row, *entityrows.Parent, Row]{
		Parent: entityrows.ParentOf(h.refs), ParentID: entityrows.ParentID, Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, p *entityrows.Parent, _ domain.Filter, page domain.PageRequest) (domain.Page[row], error) {
			rows := visible(r.Access, p.Refs)
			slices.SortFunc(rows, func(a, b row) int { return int(a.ref.Key - b.ref.Key) })
			return domain.PageOf(rows, page, func(x *row) int64 { return rowKey(*x) }), nil
		},
		Render: func(x *row) Row { return x.json() },
	})
	api.Handle("POST", collection, h.create)
	api.Handle("GET", item, h.show)
	api.Handle("PUT", item, h.update)
	api.Handle("PATCH", item, h.update)
	api.Handle("DELETE", item, h.delete)
}

type handlers struct{ refs store.References }

// find is the path's row of the path's entity, which the caller must see.
func (h handlers) find(r *httpapi.Request) (*domain.Entity, row, error) {
	e, held, err := entityrows.Entity(r, h.refs)
	if err != nil {
		return nil, row{}, err
	}
	x, err := entityrows.Find(r, visible(r.Access, held), rowKey)
	return e, x, err
}

func rowKey(x row) int64 { return x.ref.Key }

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	_, x, err := h.find(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(x.json()), nil
}

// apply reads a row's fields over x (Kanka's StoreEntityAbility): charges, position, note and
// visibility; the ability is the caller's (abilities[] on create, ability_id on update).
func apply(a domain.Access, rd *domain.Reader, x *row) {
	if v := rd.Int("charges", minCharges, maxCharges); v.Set && !rd.Errs.Has("charges") {
		x.charges = nil
		if v.Present() {
			n := v.Value
			x.charges = &n
		}
	}
	if v := rd.Int("position", 0, maxPosition); v.Set && !rd.Errs.Has("position") {
		x.position = v.Value
	}
	if v := rd.String("note", maxNote); v.Set && !rd.Errs.Has("note") {
		x.note = strings.TrimSpace(v.Value)
	}
	if v, ok := domain.ReadVisibility(rd); ok {
		x.visibility = v
		if !a.CanSeeVisibility(v, a.UserID) {
			rd.Fail("visibility_id", "The selected visibility id is invalid.")
		}
	}
}

// abilityField names the body's field in the kernel's refusal of a row's ability (entity_abilities.N).
func abilityField(err error, field string) error {
	var e *apperr.Error
	if errors.As(err, &e) && e.Fields != nil {
		for _, f := range e.Fields.Fields() {
			if strings.HasPrefix(f, Field+".") {
				name := field + strings.TrimPrefix(f, Field)
				if field == "ability_id" {
					name = field
				}
				return apperr.Invalid(name, "The selected "+name+" is invalid.")
			}
		}
	}
	return err
}

// create adds one row per ability of `abilities` (Kanka's POST), answering them all.
func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	e, _, in, err := entityrows.Write(r, h.refs)
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	ids := rd.IDs("abilities", domain.MaxRefs)
	rd.Required("abilities", ids.Present() && len(ids.Value) > 0 || rd.Errs.Has("abilities"))
	proto := row{visibility: domain.VisibilityAll}
	apply(r.Access, rd, &proto)
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	var rows []row
	return r.Commit(func() error {
		first, err := h.refs.NextIDs(r.Context(), r.Access.CampaignID, sequence, len(ids.Value))
		if err != nil {
			return err
		}
		now := time.Now().UTC().Format(time.RFC3339Nano)
		rows = rows[:0]
		put := make([]domain.Reference, len(ids.Value))
		for i, id := range ids.Value {
			x := proto
			x.ref = domain.Reference{Key: first + int64(i), Type: AbilityType, ID: id}
			x.created, x.updated, x.createdBy = now, now, r.Access.UserID
			x.ref.Data = x.data()
			put[i], rows = x.ref, append(rows, x)
		}
		return abilityField(h.refs.EditRows(r.Context(), r.Access.CampaignID, e.ID, r.Access.IsAdmin(), Field, put), "abilities")
	}, func() (httpapi.Reply, error) {
		out := make([]Row, len(rows))
		for i, x := range rows {
			out[i] = x.json()
		}
		return httpapi.One(out), nil
	})
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	e, held, in, err := entityrows.Write(r, h.refs)
	if err != nil {
		return httpapi.Reply{}, err
	}
	x, err := entityrows.Find(r, visible(r.Access, held), rowKey)
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	if v := rd.ID("ability_id"); v.Present() && !rd.Errs.Has("ability_id") {
		x.ref = domain.Reference{Key: x.ref.Key, Type: AbilityType, ID: v.Value}
	}
	apply(r.Access, rd, &x)
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	x.updated = time.Now().UTC().Format(time.RFC3339Nano)
	x.ref.Data = x.data()
	return r.Commit(func() error {
		return abilityField(h.refs.EditRows(r.Context(), r.Access.CampaignID, e.ID, r.Access.IsAdmin(), Field, []domain.Reference{x.ref}), "ability_id")
	}, func() (httpapi.Reply, error) { return httpapi.One(x.json()), nil })
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	e, x, err := h.find(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return r.Commit(func() error {
		return h.refs.EditRows(r.Context(), r.Access.CampaignID, e.ID, r.Access.IsAdmin(), Field, nil, x.ref.Key)
	}, func() (httpapi.Reply, error) { return httpapi.Deleted(x.ref.Key), nil })
}
