// Package attributes is the entity attributes family's HTTP surface, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/attributes: Kanka's CRUD and its bulk
// replace (PUT) and update (PATCH) of the whole list. An entity's attributes are stored as one
// pack (attrstore), so every route reads one item and every write is one conditional
// put of it. Private attributes are for admins only.
package attributes

import (
	"slices"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/attributes/attrstore"
	"github.com/lorekeep/lorekeep/shared/attributes/attrwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := attrstore.New(kernel)
	h := handlers{st: st}
	const collection, item = "/entities/{entity_id}/attributes", "/entities/{entity_id}/attributes/{id}"
	ahead := httpapi.ReadAhead(attrstore.ReadAttributes, "", "entity_id")
	// The list's parent is the path's entity id: the tombstones (kept in the attributes' pack)
	// check the entity themselves, and the page reads the pack, read ahead with the access once.
	httpapi.MountList(api, collection, httpapi.List[domain.Attribute, int64, attrwire.Attribute]{
		Parent:   func(r *httpapi.Request) (int64, error) { return r.PathID("entity_id") },
		ParentID: func(eid int64) int64 { return eid },
		Gone:     domain.GoneAttributes, Tombstones: st, Filters: domain.FilterChildren,
		Read: h.page,
		Rows: func(_ *httpapi.Request, _ int64, as []domain.Attribute) ([]attrwire.Attribute, error) {
			return attrwire.Render(as), nil
		},
		Ahead: ahead,
	})
	api.Handle("POST", collection, h.create, ahead)
	api.Handle("PUT", collection, func(r *httpapi.Request) (httpapi.Reply, error) { return h.bulk(r, true) }, ahead)
	api.Handle("PATCH", collection, func(r *httpapi.Request) (httpapi.Reply, error) { return h.bulk(r, false) }, ahead)
	api.Handle("GET", item, h.show, ahead)
	api.Handle("PUT", item, h.update, ahead)
	api.Handle("PATCH", item, h.update, ahead)
	api.Handle("DELETE", item, h.delete, ahead)
}

type handlers struct{ st Store }

// read is the visible entity of the path and its attributes: all of them and the caller's.
type read struct {
	entity *domain.Entity
	all    []domain.Attribute
	set    domain.AttributeSet
}

func (h handlers) read(r *httpapi.Request) (read, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return read{}, err
	}
	e, set, err := h.st.GetAttributes(r.Context(), r.Access.CampaignID, eid)
	if err == nil {
		err = r.Access.SeeEntity(e)
	}
	return read{entity: e, all: set.Items, set: set}, err
}

// find is the index of the visible attribute {id} in all; a hidden one is a 404.
func (h handlers) find(r *httpapi.Request, all []domain.Attribute) (int, error) {
	id, err := r.PathID("id")
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(all, func(a domain.Attribute) bool { return a.ID == id })
	if i < 0 || (all[i].IsPrivate && !r.Access.IsAdmin()) {
		return 0, apperr.ErrNotFound
	}
	return i, nil
}

// page is the attributes of one page: the entity's attributes are one item (the pack), read
// whole, so the filters and the page are applied here.
func (h handlers) page(r *httpapi.Request, _ int64, f domain.Filter, page domain.PageRequest) (domain.Page[domain.Attribute], error) {
	rd, err := h.read(r)
	if err != nil {
		return domain.Page[domain.Attribute]{}, err
	}
	var rows []domain.Attribute
	for _, a := range r.Access.VisibleAttributes(rd.all) {
		if f.Match(domain.Filtered{Name: a.Name, IsPrivate: a.IsPrivate, CreatedBy: a.CreatedBy, UpdatedBy: a.UpdatedBy, UpdatedAt: a.UpdatedAt}) {
			rows = append(rows, a)
		}
	}
	return domain.PageOf(rows, page, func(a *domain.Attribute) int64 { return a.ID }), nil
}

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	rd, err := h.read(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	i, err := h.find(r, rd.all)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(attrwire.Render(rd.all[i : i+1])[0]), nil
}

// write reads the entity's attributes, changes them with change (which answers the attribute
// to reply with, or the list) and saves them on condition of the pack read; a lost race
// re-reads and re-applies.
func (h handlers) write(r *httpapi.Request, change func(rd read) ([]domain.Attribute, func() httpapi.Reply, error)) (httpapi.Reply, error) {
	var reply func() httpapi.Reply
	return r.Commit(func() error {
		return apperr.RetryConflicts(r.Context(), func() error {
			rd, err := h.read(r)
			if err != nil {
				return err
			}
			next, rep, err := change(rd)
			if err != nil {
				return err
			}
			reply = rep
			if next == nil {
				return nil // nothing changed
			}
			return h.st.SaveAttributes(r.Context(), r.Access.CampaignID, rd.entity.ID, rd.set, next)
		})
	}, func() (httpapi.Reply, error) { return reply(), nil })
}

// stamp marks next as written by the caller now (the store sets the times).
func stamp(r *httpapi.Request, prev, next *domain.Attribute) {
	next.UpdatedBy = r.Access.UserID
	next.UpdatedAt = time.Time{}
	if prev == nil {
		next.CampaignID, next.CreatedBy, next.CreatedAt = r.Access.CampaignID, r.Access.UserID, time.Time{}
	}
}

func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var a domain.Attribute
	if err := a.Apply(in); err != nil {
		return httpapi.Reply{}, err
	}
	if err := r.Access.CheckPrivacy(false, a.IsPrivate); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	return h.write(r, func(rd read) ([]domain.Attribute, func() httpapi.Reply, error) {
		if id == 0 {
			if id, err = h.st.NewAttributeIDs(r.Context(), r.Access.CampaignID, 1); err != nil {
				return nil, nil, err
			}
		}
		next := a
		next.ID, next.EntityID = id, rd.entity.ID
		stamp(r, nil, &next)
		all := append(slices.Clip(rd.all), next)
		if err := domain.CheckAttributes(all, "value"); err != nil {
			return nil, nil, err
		}
		return all, func() httpapi.Reply { return httpapi.One(attrwire.Render(all[len(all)-1:])[0]) }, nil
	})
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.write(r, func(rd read) ([]domain.Attribute, func() httpapi.Reply, error) {
		i, err := h.find(r, rd.all)
		if err != nil {
			return nil, nil, err
		}
		next := rd.all[i]
		if err := next.Apply(in); err != nil {
			return nil, nil, err
		}
		if err := r.Access.CheckPrivacy(rd.all[i].IsPrivate, next.IsPrivate); err != nil {
			return nil, nil, err
		}
		stamp(r, &rd.all[i], &next)
		all := slices.Clone(rd.all)
		all[i] = next
		if err := domain.CheckAttributes(all, "value"); err != nil {
			return nil, nil, err
		}
		return all, func() httpapi.Reply { return httpapi.One(attrwire.Render(all[i : i+1])[0]) }, nil
	})
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	var id int64
	return h.write(r, func(rd read) ([]domain.Attribute, func() httpapi.Reply, error) {
		i, err := h.find(r, rd.all)
		if err != nil {
			return nil, nil, err
		}
		id = rd.all[i].ID
		all := slices.Delete(slices.Clone(rd.all), i, i+1)
		if all == nil {
			all = []domain.Attribute{}
		}
		return all, func() httpapi.Reply { return httpapi.Deleted(id) }, nil
	})
}

// bulk is Kanka's PUT (replace) and PATCH (update) of the whole list (domain.ApplyBulk); it
// answers the entity's attributes the caller may see, all of them (Kanka answers the list
// unpaged). A non-admin's bulk write neither sees nor touches private attributes.
func (h handlers) bulk(r *httpapi.Request, replace bool) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	rows, err := domain.ReadBulk(in)
	if err != nil {
		return httpapi.Reply{}, err
	}
	for _, row := range rows {
		if err := r.Access.CheckPrivacy(false, row.Attribute.IsPrivate); err != nil {
			return httpapi.Reply{}, err
		}
	}
	var ids []int64
	return h.write(r, func(rd read) ([]domain.Attribute, func() httpapi.Reply, error) {
		visible := r.Access.VisibleAttributes(rd.all)
		news := 0
		for _, row := range rows {
			if row.ID == 0 {
				news++
			}
		}
		if len(ids) < news { // reserved once, kept across retries
			first, err := h.st.NewAttributeIDs(r.Context(), r.Access.CampaignID, news)
			if err != nil {
				return nil, nil, err
			}
			ids = ids[:0]
			for k := range news {
				ids = append(ids, first+int64(k))
			}
		}
		used := 0
		saved, changed, err := domain.ApplyBulk(visible, rows, replace, func() int64 { used++; return ids[used-1] },
			func(prev, next *domain.Attribute) {
				next.EntityID = rd.entity.ID
				stamp(r, prev, next)
			})
		if err != nil {
			return nil, nil, err
		}
		all := saved
		if !r.Access.IsAdmin() { // the private ones stay as they are
			for _, a := range rd.all {
				if a.IsPrivate {
					all = append(all, a)
				}
			}
			slices.SortFunc(all, func(x, y domain.Attribute) int { return int(x.ID - y.ID) })
			if err := domain.CheckAttributes(all, "attribute"); err != nil {
				return nil, nil, err
			}
		}
		reply := func() httpapi.Reply {
			shown := r.Access.VisibleAttributes(all)
			return httpapi.Many(attrwire.Render(shown), len(shown), "", nil, domain.PageRequest{Page: 1, Limit: max(1, len(shown))})
		}
		if !changed {
			return nil, reply, nil
		}
		if all == nil {
			all = []domain.Attribute{}
		}
		return all, reply, nil
	})
}
