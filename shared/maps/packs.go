package maps

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Layers and groups: Kanka's maps/{map}/map_layers and map_groups. Each map's are one pack
// (store: mappacks.go), read with the map and the access in one round trip; lists are paged in
// memory (at most 20 layers, 100 groups); a write changes the pack on condition of its version.

// packRoutes are the routes of one pack kind, T its entry.
type packRoutes[T any] struct {
	st    Store
	field string // the map answer's array (and its cap's noun)
	max   int
	read  func(*mapPacksRead) *domain.MapPack[T]
	write func(r *httpapi.Request, mid int64, change func(*domain.MapPack[T], time.Time) error) error
	entry func(*T) *domain.PackEntry
	apply func(r *httpapi.Request, in domain.Input, t *T, pack *domain.MapPack[T]) error
	// removed fixes what referred to the deleted entry (a group's children become roots).
	removed func(pack *domain.MapPack[T], id int64, now time.Time, by int64)
	render  func(r *httpapi.Request, mid int64, items, all []T) ([]any, error)
}

type mapPacksRead struct {
	m      *domain.Map
	groups *domain.MapPack[domain.MapGroup]
	layers *domain.MapPack[domain.MapLayer]
}

func registerPacks(api *httpapi.API, st Store) {
	groups := packRoutes[domain.MapGroup]{st: st, field: "groups", max: domain.MaxMapGroups,
		read: func(p *mapPacksRead) *domain.MapPack[domain.MapGroup] { return p.groups },
		write: func(r *httpapi.Request, mid int64, change func(*domain.MapPack[domain.MapGroup], time.Time) error) error {
			return st.WriteMapGroups(r.Context(), r.Access.CampaignID, mid, change)
		},
		entry: func(g *domain.MapGroup) *domain.PackEntry { return &g.PackEntry },
		apply: func(r *httpapi.Request, in domain.Input, g *domain.MapGroup, pack *domain.MapPack[domain.MapGroup]) error {
			if g.ID == 0 {
				g.IsShown = true
			}
			return g.Apply(in, pack.Items, func(p *domain.PackEntry) bool { return r.Access.CanSeeVisibility(p.Visibility, p.CreatedBy) })
		},
		removed: func(pack *domain.MapPack[domain.MapGroup], id int64, now time.Time, by int64) {
			for i := range pack.Items { // changed, so lastSync reports them
				if p := pack.Items[i].ParentID; p != nil && *p == id {
					pack.Items[i].ParentID, pack.Items[i].UpdatedAt, pack.Items[i].UpdatedBy = nil, now, by
				}
			}
		},
		render: func(r *httpapi.Request, mid int64, gs, all []domain.MapGroup) ([]any, error) {
			return renderGroups(r, mid, gs, all...), nil
		},
	}
	layers := packRoutes[domain.MapLayer]{st: st, field: "layers", max: domain.MaxMapLayers,
		read: func(p *mapPacksRead) *domain.MapPack[domain.MapLayer] { return p.layers },
		write: func(r *httpapi.Request, mid int64, change func(*domain.MapPack[domain.MapLayer], time.Time) error) error {
			return st.WriteMapLayers(r.Context(), r.Access.CampaignID, mid, change)
		},
		entry: func(l *domain.MapLayer) *domain.PackEntry { return &l.PackEntry },
		apply: func(r *httpapi.Request, in domain.Input, l *domain.MapLayer, _ *domain.MapPack[domain.MapLayer]) error {
			if err := l.Apply(in); err != nil {
				return err
			}
			c, err := r.ReadImage(in) // once a request: a retried pack write reuses the stored picture
			if err != nil {
				return err
			}
			return l.SetImage(c.Set, c.Path)
		},
		removed: func(*domain.MapPack[domain.MapLayer], int64, time.Time, int64) {},
		render: func(r *httpapi.Request, mid int64, ls, _ []domain.MapLayer) ([]any, error) {
			return renderLayers(r, st, mid, ls)
		},
	}
	groups.mount(api, "/maps/{map_id}/map_groups")
	layers.mount(api, "/maps/{map_id}/map_layers")
}

func (k packRoutes[T]) mount(api *httpapi.API, collection string) {
	ahead := httpapi.ReadAhead(store.ReadMapPacks, "", "map_id")
	item := collection + "/{id}"
	api.Handle("GET", collection, k.list, ahead)
	api.Handle("POST", collection, k.create, ahead)
	api.Handle("GET", item, k.show, ahead)
	api.Handle("PUT", item, k.update, ahead)
	api.Handle("PATCH", item, k.update, ahead)
	api.Handle("DELETE", item, k.remove, ahead)
}

// readPacks reads the path's map, visible to the caller, and its packs.
func readPacks(r *httpapi.Request, st Store) (*mapPacksRead, error) {
	mid, err := r.PathID("map_id")
	if err != nil {
		return nil, err
	}
	m, err := st.GetMap(r.Context(), r.Access.CampaignID, mid)
	if err == nil && !r.Access.CanSee(m.IsPrivate) {
		err = apperr.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	g, l, err := st.GetMapPacks(r.Context(), r.Access.CampaignID, mid)
	return &mapPacksRead{m: m, groups: g, layers: l}, err
}

// visible keeps the entries the caller may see.
func visibleEntries[T any](r *httpapi.Request, items []T, entry func(*T) *domain.PackEntry) []T {
	out := make([]T, 0, len(items))
	for i := range items {
		if e := entry(&items[i]); r.Access.CanSeeVisibility(e.Visibility, e.CreatedBy) {
			out = append(out, items[i])
		}
	}
	return out
}

func (k packRoutes[T]) list(r *httpapi.Request) (httpapi.Reply, error) {
	p, err := readPacks(r, k.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if reply, ok, err := r.Deletions(packGone(k.read(p).Gone), "", p.m.ID); ok {
		return reply, err
	}
	f, err := r.Filter(domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	rows := visibleEntries(r, k.read(p).Items, k.entry)
	if f.UpdatedAfter != nil { // lastSync: what changed since, in memory
		rows = slices.DeleteFunc(rows, func(t T) bool { return !k.entry(&t).UpdatedAt.After(*f.UpdatedAfter) })
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res := domain.PageOf(rows, page, func(t *T) int64 { return k.entry(t).ID })
	out, err := k.render(r, p.m.ID, res.Items, k.read(p).Items)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(out, res.Total, res.Next, res.Cursors, page), nil
}

// find is the visible entry {id} of the pack's items (its index), ErrNotFound otherwise.
func (k packRoutes[T]) find(r *httpapi.Request, items []T) (int, error) {
	id, err := r.PathID("id")
	if err != nil {
		return 0, err
	}
	for i := range items {
		if e := k.entry(&items[i]); e.ID == id {
			if !r.Access.CanSeeVisibility(e.Visibility, e.CreatedBy) {
				break
			}
			return i, nil
		}
	}
	return 0, apperr.ErrNotFound
}

func (k packRoutes[T]) one(r *httpapi.Request, mid int64, t T, all []T) (httpapi.Reply, error) {
	out, err := k.render(r, mid, []T{t}, all)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(out[0]), nil
}

func (k packRoutes[T]) show(r *httpapi.Request) (httpapi.Reply, error) {
	p, err := readPacks(r, k.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	items := k.read(p).Items
	i, err := k.find(r, items)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return k.one(r, p.m.ID, items[i], items)
}

func (k packRoutes[T]) create(r *httpapi.Request) (httpapi.Reply, error) {
	return k.put(r, func(in domain.Input, pack *domain.MapPack[T], now time.Time) (T, error) {
		var t T
		if len(pack.Items) >= k.max {
			return t, apperr.Invalid("name", "A map holds at most "+strconv.Itoa(k.max)+" "+k.field+".")
		}
		e := k.entry(&t)
		e.CreatedBy, e.UpdatedBy, e.CreatedAt, e.UpdatedAt = r.Access.UserID, r.Access.UserID, now, now
		if err := k.apply(r, in, &t, pack); err != nil {
			return t, err
		}
		pack.Seq++
		e.ID = pack.Seq
		pack.Items = append(pack.Items, t)
		return t, nil
	})
}

func (k packRoutes[T]) update(r *httpapi.Request) (httpapi.Reply, error) {
	return k.put(r, func(in domain.Input, pack *domain.MapPack[T], now time.Time) (T, error) {
		i, err := k.find(r, pack.Items)
		if err != nil {
			var zero T
			return zero, err
		}
		t := pack.Items[i]
		if err := k.apply(r, in, &t, pack); err != nil {
			return t, err
		}
		e := k.entry(&t)
		e.UpdatedBy, e.UpdatedAt = r.Access.UserID, now
		pack.Items[i] = t
		return t, nil
	})
}

// put writes the map's pack with one entry made or changed by edit (in one conditional write,
// retried on a lost race by k.write) and answers that entry.
func (k packRoutes[T]) put(r *httpapi.Request, edit func(in domain.Input, pack *domain.MapPack[T], now time.Time) (T, error)) (httpapi.Reply, error) {
	p, err := readPacks(r, k.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var done T
	var all []T
	return r.Commit(func() error {
		return k.write(r, p.m.ID, func(pack *domain.MapPack[T], now time.Time) error {
			t, err := edit(in, pack, now)
			if err == nil {
				done, all = t, pack.Items
			}
			return err
		})
	}, func() (httpapi.Reply, error) { return k.one(r, p.m.ID, done, all) })
}

func (k packRoutes[T]) remove(r *httpapi.Request) (httpapi.Reply, error) {
	p, err := readPacks(r, k.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	return r.Commit(func() error {
		return k.write(r, p.m.ID, func(pack *domain.MapPack[T], now time.Time) error {
			i, err := k.find(r, pack.Items)
			if err != nil {
				return err
			}
			e := *k.entry(&pack.Items[i])
			id = e.ID
			pack.Items = slices.Delete(pack.Items, i, i+1)
			pack.Gone = append(pack.Gone, domain.PackGone{ID: e.ID, Visibility: e.Visibility, CreatedBy: e.CreatedBy, DeletedAt: now})
			k.removed(pack, id, now, r.Access.UserID)
			return nil
		})
	}, func() (httpapi.Reply, error) { return httpapi.Deleted(id), nil })
}

// packGone answers ?deleted=1 on a pack's list from its recent deletions (the last
// domain.MaxPackGone, at most domain.GoneHistory old), as the store's tombstones are answered.
type packGone []domain.PackGone

func (g packGone) ListGone(_ context.Context, _ int64, q domain.GoneQuery, a domain.Access, p domain.PageRequest) (domain.Page[domain.Gone], time.Time, error) {
	since := time.Now().Add(-domain.GoneHistory)
	if q.Since.After(since) {
		since = q.Since
	}
	var rows []domain.Gone
	for _, e := range g {
		if e.DeletedAt.After(since) && a.CanSeeVisibility(e.Visibility, e.CreatedBy) {
			rows = append(rows, domain.Gone{ID: e.ID, DeletedAt: e.DeletedAt})
		}
	}
	slices.SortFunc(rows, func(x, y domain.Gone) int { return cmp.Compare(x.ID, y.ID) })
	return domain.PageOf(rows, p, func(x *domain.Gone) int64 { return x.ID }), since, nil
}
