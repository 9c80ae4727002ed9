// Package inventory is Kanka's entity inventory (entities/{entity}/inventory): the lines an
// entity holds, each an item of the campaign or a free name, with its amount, position,
// description, visibility and whether it is equipped. A line is one of the kernel's references
// of the entity's record (store/refs.go: field `inventory`, a row of its own by its id), so an
// item's trash hides its lines, its restore shows them, its privacy change re-places them and
// its purge drops them, exactly, and the record's `related=1` answers them without a read.
package inventory

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

// Field is the references' field the lines are kept under; ItemType the module they name.
const (
	Field    = "inventory"
	ItemType = "item"
	sequence = "inventory" // the campaign's sequence of line ids
)

// Kanka's column sizes (StoreInventory, UpdateInventory).
const (
	maxName     = 45
	maxText     = 191
	maxAmount   = 1<<32 - 1
	defaultVisi = 1
)

// Line is Kanka's InventoryResource, keys in its order.
type Line struct {
	Amount        *int64  `json:"amount"`
	CopyItemEntry bool    `json:"copy_item_entry"`
	CreatedAt     string  `json:"created_at"`
	CreatedBy     *int64  `json:"created_by"`
	Description   *string `json:"description"`
	EntityID      int64   `json:"entity_id"`
	ID            int64   `json:"id"`
	IsEquipped    bool    `json:"is_equipped"`
	IsPrivate     bool    `json:"is_private"`
	ItemID        *int64  `json:"item_id"`
	Name          *string `json:"name"`
	Position      *string `json:"position"`
	UpdatedAt     string  `json:"updated_at"`
	UpdatedBy     *int64  `json:"updated_by"`
	VisibilityID  int     `json:"visibility_id"`
}

// line is a line as its reference holds it.
type line struct {
	ref        domain.Reference
	name       string
	amount     *int64
	position   string
	desc       string
	visibility domain.Visibility
	equipped   bool
	copyEntry  bool
	createdBy  int64
	created    string
	updated    string
}

// hasItem reports whether the line names an item (else it is a free name).
func (l line) hasItem() bool { return l.ref.EntityID != 0 || l.ref.ID != 0 }

func lineOf(r domain.Reference) line {
	d := r.Data
	l := line{ref: r}
	l.name, _ = d["name"].(string)
	l.position, _ = d["position"].(string)
	l.desc, _ = d["description"].(string)
	l.equipped, _ = d["is_equipped"].(bool)
	l.copyEntry, _ = d["copy_item_entry"].(bool)
	l.created, _ = d["created_at"].(string)
	l.updated, _ = d["updated_at"].(string)
	l.createdBy = num(d["created_by"])
	if v, ok := d["amount"]; ok {
		n := num(v)
		l.amount = &n
	}
	l.visibility, _ = domain.ParseVisibility(fmt.Sprint(num(d["visibility_id"])))
	return l
}

func num(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}

func (l line) data() map[string]any {
	d := map[string]any{"visibility_id": int64(l.visibility.ID()), "is_equipped": l.equipped, "copy_item_entry": l.copyEntry,
		"created_at": l.created, "updated_at": l.updated, "created_by": l.createdBy}
	for k, v := range map[string]string{"name": l.name, "position": l.position, "description": l.desc} {
		if v != "" {
			d[k] = v
		}
	}
	if l.amount != nil {
		d["amount"] = *l.amount
	}
	return d
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (l line) json(eid int64) Line {
	j := Line{Amount: l.amount, CopyItemEntry: l.copyEntry, CreatedAt: l.created, Description: opt(l.desc), EntityID: eid, ID: l.ref.Key,
		IsEquipped: l.equipped, Name: opt(l.name), Position: opt(l.position), UpdatedAt: l.updated, VisibilityID: l.visibility.ID()}
	if l.createdBy != 0 {
		by := l.createdBy
		j.CreatedBy = &by
	}
	if l.hasItem() {
		id := l.ref.ID
		j.ItemID = &id
	}
	return j
}

// visible are the lines of refs the caller may see: by their visibility, and never one
// naming an item in the trash or, to non-admins, a private item.
func visible(a domain.Access, refs []domain.Reference) []line {
	var out []line
	for _, r := range domain.RefsOf(refs, Field, a.IsAdmin()) {
		if l := lineOf(r); a.CanSeeVisibility(l.visibility, l.createdBy) {
			out = append(out, l)
		}
	}
	return out
}

// Render is the inventory of entity eid as related=1 answers it to the caller.
func Render(a domain.Access, eid int64, refs []domain.Reference) []any {
	out := []any{}
	for _, l := range visible(a, refs) {
		out = append(out, l.json(eid))
	}
	return out
}

// Register mounts entities/{entity_id}/inventory and its lines.
func Register(api *httpapi.API, st *store.Store) {
	h := handlers{st: st, refs: store.ReferencesOf(st)}
	collection := "/entities/{entity_id}/inventory"
	item := collection + "/{id}"
	httpapi.MountList(api, collection, httpapi.List[line, *entityrows.Parent, Line]{
		Parent: entityrows.ParentOf(h.refs), ParentID: entityrows.ParentID, Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, p *entityrows.Parent, _ domain.Filter, page domain.PageRequest) (domain.Page[line], error) {
			ls := visible(r.Access, p.Refs)
			slices.SortFunc(ls, func(a, b line) int { return int(a.ref.Key - b.ref.Key) })
			return domain.PageOf(ls, page, func(l *line) int64 { return lineKey(*l) }), nil
		},
		Rows: func(_ *httpapi.Request, p *entityrows.Parent, ls []line) ([]Line, error) {
			out := make([]Line, len(ls))
			for i, l := range ls {
				out[i] = l.json(p.Entity.ID)
			}
			return out, nil
		},
	})
	api.Handle("POST", collection, h.create)
	api.Handle("GET", item, h.show)
	api.Handle("PUT", item, h.update)
	api.Handle("PATCH", item, h.update)
	api.Handle("DELETE", item, h.delete)
}

type handlers struct {
	st   *store.Store
	refs store.References
}

// find is the path's line of the path's entity, which the caller must see.
func (h handlers) find(r *httpapi.Request) (*domain.Entity, line, error) {
	e, held, err := entityrows.Entity(r, h.refs)
	if err != nil {
		return nil, line{}, err
	}
	l, err := entityrows.Find(r, visible(r.Access, held), lineKey)
	return e, l, err
}

func lineKey(l line) int64 { return l.ref.Key }

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	e, l, err := h.find(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(l.json(e.ID)), nil
}

// apply reads a line's fields over l (Kanka's UpdateInventory, for create and update alike):
// an item of the campaign (item_id) or a free name, the amount (required on create), position,
// description, visibility and the flags; a line without an item copies no entry.
func apply(in domain.Input, l *line, create bool) error {
	rd := domain.NewReader(in)
	if v := rd.ID("item_id"); v.Set && !rd.Errs.Has("item_id") {
		if v.Present() {
			l.ref = domain.Reference{Field: Field, Key: l.ref.Key, Type: ItemType, ID: v.Value, Data: l.ref.Data}
		} else {
			l.ref = domain.Reference{Field: Field, Key: l.ref.Key, Data: l.ref.Data}
		}
	}
	if v := rd.String("name", maxName); v.Set && !rd.Errs.Has("name") {
		l.name = strings.TrimSpace(v.Value)
	}
	if v := rd.Int("amount", 0, maxAmount); v.Set && !rd.Errs.Has("amount") {
		l.amount = nil
		if v.Present() {
			n := v.Value
			l.amount = &n
		}
	}
	if create {
		rd.Required("amount", l.amount != nil || rd.Errs.Has("amount"))
	}
	for name, dst := range map[string]*string{"position": &l.position, "description": &l.desc} {
		if v := rd.String(name, maxText); v.Set && !rd.Errs.Has(name) {
			*dst = strings.TrimSpace(v.Value)
		}
	}
	if v, ok := domain.ReadVisibility(rd); ok {
		l.visibility = v
	}
	if v := rd.Bool("is_equipped"); v.Present() {
		l.equipped = v.Value
	}
	if v := rd.Bool("copy_item_entry"); v.Present() {
		l.copyEntry = v.Value
	}
	if !l.hasItem() {
		l.copyEntry = false // Kanka's InventoryObserver
		if l.name == "" && !rd.Errs.Has("name") && !rd.Errs.Has("item_id") {
			rd.Fail("name", "The name field is required when item id is not present.")
		}
	}
	return rd.Err()
}

// save writes line l of entity eid (remove: drops it), answering it as stored.
func (h handlers) save(r *httpapi.Request, eid int64, l line, remove bool) (line, error) {
	ref := l.ref
	ref.Field, ref.Data = Field, l.data()
	var err error
	if remove {
		err = h.refs.EditRows(r.Context(), r.Access.CampaignID, eid, r.Access.IsAdmin(), Field, nil, ref.Key)
	} else {
		err = h.refs.EditRows(r.Context(), r.Access.CampaignID, eid, r.Access.IsAdmin(), Field, []domain.Reference{ref})
	}
	if err != nil {
		return line{}, itemField(err)
	}
	return l, nil
}

// itemField names item_id in the kernel's refusal of the line's item (inventory.N).
func itemField(err error) error {
	var e *apperr.Error
	if errors.As(err, &e) && e.Fields != nil && slices.ContainsFunc(e.Fields.Fields(), func(f string) bool {
		return strings.HasPrefix(f, Field+".")
	}) {
		return apperr.Invalid("item_id", "The selected item id is invalid.")
	}
	return err
}

func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	e, _, in, err := entityrows.Write(r, h.refs)
	if err != nil {
		return httpapi.Reply{}, err
	}
	l := line{ref: domain.Reference{Field: Field}, visibility: domain.VisibilityAll}
	if err := apply(in, &l, true); err != nil {
		return httpapi.Reply{}, err
	}
	if !r.Access.CanSeeVisibility(l.visibility, r.Access.UserID) {
		return httpapi.Reply{}, apperr.Invalid("visibility_id", "The selected visibility id is invalid.")
	}
	var saved line
	return r.Commit(func() error {
		id, err := h.st.NextIDs(r.Context(), r.Access.CampaignID, sequence, 1)
		if err != nil {
			return err
		}
		now := time.Now().UTC().Format(time.RFC3339Nano)
		l.ref.Key, l.created, l.updated, l.createdBy = id, now, now, r.Access.UserID
		saved, err = h.save(r, e.ID, l, false)
		return err
	}, func() (httpapi.Reply, error) { return httpapi.One(saved.json(e.ID)), nil })
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	e, held, in, err := entityrows.Write(r, h.refs)
	if err != nil {
		return httpapi.Reply{}, err
	}
	l, err := entityrows.Find(r, visible(r.Access, held), lineKey)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if err := apply(in, &l, false); err != nil {
		return httpapi.Reply{}, err
	}
	if !r.Access.CanSeeVisibility(l.visibility, l.createdBy) {
		return httpapi.Reply{}, apperr.Invalid("visibility_id", "The selected visibility id is invalid.")
	}
	l.updated = time.Now().UTC().Format(time.RFC3339Nano)
	var saved line
	return r.Commit(func() error {
		var err error
		saved, err = h.save(r, e.ID, l, false)
		return err
	}, func() (httpapi.Reply, error) { return httpapi.One(saved.json(e.ID)), nil })
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	e, l, err := h.find(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return r.Commit(func() error {
		_, err := h.save(r, e.ID, l, true)
		return err
	}, func() (httpapi.Reply, error) { return httpapi.Deleted(l.ref.Key), nil })
}
