package modules

import (
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/modules/spec"
	"github.com/lorekeep/lorekeep/shared/store"
)

// A module's reference fields (spec.Ref) on the kernel's references (store/refs.go): written
// in both eras (a list, or the 2025 API's single field standing for its first reference),
// answered as the reader may see them, filtered on, and answered in reverse on the target's
// module (a family's members).

// MaxReverse bounds the referrers a record answers in reverse (a family's members).
const MaxReverse = 1000

// applyRefs reads the reference fields of the body into r.Refs. A list sent replaces the
// field's references; its legacy field, sent without it, replaces the first one the writer
// sees (or adds it), null removes that one; a single reference's field sets or clears it.
// The kernel resolves and checks them, and keeps those the writer cannot see.
func (k declared) applyRefs(r *Record, rd *domain.Reader, a domain.Access) {
	admin := a.CanSee(true)
	for _, f := range k.Refs {
		switch {
		case f.Membership: // written through the organisation's members
		case f.One:
			if v := rd.ID(f.Name); v.Set && !rd.Errs.Has(f.Name) {
				var next []domain.Reference
				if v.Present() {
					next = []domain.Reference{newRef(f, f.Target, v.Value, true)}
				}
				r.Refs = domain.SetRefs(r.Refs, f.Name, next)
			}
		default:
			if v := rd.IDs(f.Name, domain.MaxRefs); v.Set {
				if rd.Errs.Has(f.Name) || v.Present() && v.Value == nil { // refused, as a whole or by item
					continue
				}
				next := make([]domain.Reference, len(v.Value))
				for i, id := range v.Value {
					next[i] = newRef(f, f.Target, id, false)
				}
				r.Refs = domain.SetRefs(r.Refs, f.Name, next)
				continue
			}
			if f.Legacy == "" {
				continue
			}
			if v := rd.ID(f.Legacy); v.Set && !rd.Errs.Has(f.Legacy) {
				r.Refs = k.setLegacy(r.Refs, f, v, admin)
			}
		}
	}
}

// newRef is a reference of field f to id: a module id of target, or an entity id (target "").
func newRef(f spec.Ref, target string, id int64, single bool) domain.Reference {
	if target == "" {
		return domain.Reference{Field: f.Name, EntityID: id, Single: single}
	}
	return domain.Reference{Field: f.Name, Type: target, ID: id, Single: single}
}

// setLegacy writes the 2025 API's single field of list f: the first reference the writer
// sees (of the legacy field's module) becomes v's, or goes when v is null.
func (k declared) setLegacy(refs []domain.Reference, f spec.Ref, v domain.Field[int64], admin bool) []domain.Reference {
	target := cmpOr(f.LegacyTarget, f.Target)
	cur := domain.RefsOf(refs, f.Name, admin)
	var list []domain.Reference
	for _, r := range refs {
		if r.Field == f.Name {
			list = append(list, r)
		}
	}
	first := slices.IndexFunc(list, func(r domain.Reference) bool {
		return slices.ContainsFunc(cur, r.Same) && r.Type == target
	})
	var next []domain.Reference
	switch {
	case v.Present() && first >= 0 && list[first].ID == v.Value:
		return refs // unchanged: a client sending back what it read
	case v.Present():
		fresh := domain.Reference{Field: f.Name, Type: target, ID: v.Value}
		next = slices.DeleteFunc(slices.Clone(list), func(r domain.Reference) bool { return r.Type == target && r.ID == v.Value })
		if first >= 0 && first < len(next) && next[first].Same(list[first]) {
			next[first] = fresh
		} else {
			next = append([]domain.Reference{fresh}, next...)
		}
	case first >= 0:
		next = slices.Delete(slices.Clone(list), first, first+1)
	default:
		return refs
	}
	return domain.SetRefs(refs, f.Name, next)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// renderRefs appends the reference fields as the reader may see them: a list's ids (module
// ids, or entity ids for a field naming entities), its legacy field (the first one of its
// module) and, for admins, the ids of the private ones; a single reference's id or null.
func (k declared) renderRefs(j *recordJSON, rec *Record, admin bool) {
	for _, f := range k.Refs {
		if f.Membership {
			continue // with related=1 (renderMemberships)
		}
		seen := domain.RefsOf(rec.Refs, f.Name, admin)
		id := func(r domain.Reference) int64 {
			if f.Target == "" {
				return r.EntityID
			}
			return r.ID
		}
		if f.One {
			var v *int64
			if len(seen) > 0 {
				n := id(seen[0])
				v = &n
			}
			j.own = append(j.own, ownField{f.Name, v})
			continue
		}
		ids := make([]int64, len(seen))
		var private []int64
		for i, r := range seen {
			ids[i] = id(r)
			if r.Private {
				private = append(private, id(r))
			}
		}
		j.own = append(j.own, ownField{f.Name, ids})
		if f.Private {
			if private == nil {
				private = []int64{}
			}
			j.own = append(j.own, ownField{"private_" + f.Name, private})
		}
		if f.Legacy != "" {
			target := cmpOr(f.LegacyTarget, f.Target)
			var first *int64
			for _, r := range seen {
				if r.Type == target {
					n := r.ID
					first = &n
					break
				}
			}
			j.own = append(j.own, ownField{f.Legacy, first})
		}
	}
}

// refFilters reads the module's reference filters: a list's ids (any of them: races[]=1,
// races=1,2), its legacy field and a single reference's id (each one id).
func (k declared) refFilters(rd *domain.Reader, f *domain.Filter) {
	for _, rf := range k.Refs {
		byEntity := rf.Target == ""
		if rf.Membership {
			continue
		}
		if rf.One {
			if v := rd.ID(rf.Name); v.Present() {
				f.Refs = append(f.Refs, domain.RefFilter{Field: rf.Name, Type: rf.Target, IDs: []int64{v.Value}, ByEntity: byEntity})
			}
			continue
		}
		if v := rd.IDs(rf.Name, domain.MaxRefs); v.Present() && len(v.Value) > 0 {
			f.Refs = append(f.Refs, domain.RefFilter{Field: rf.Name, Type: rf.Target, IDs: v.Value, ByEntity: byEntity})
		}
		if rf.Legacy != "" {
			if v := rd.ID(rf.Legacy); v.Present() {
				f.Refs = append(f.Refs, domain.RefFilter{Field: rf.Name, Type: cmpOr(rf.LegacyTarget, rf.Target), IDs: []int64{v.Value}})
			}
		}
	}
}

// reverse reads, for each record of a page, its referrers by each of the module's reverse
// fields, concurrently (one Query a record and field), the private referrers for admins only,
// at most MaxReverse each: ids, or member objects.
func (k declared) reverse(r *httpapi.Request, st *store.Store, rs []Record) (map[int64]map[string]any, error) {
	fields := k.Reverses()
	if len(fields) == 0 || len(rs) == 0 {
		return nil, nil
	}
	res := make([][]any, len(rs))
	g, ctx := errgroup.WithContext(r.Context())
	g.SetLimit(16)
	admin := r.Access.CanSee(true)
	for i := range rs {
		res[i] = make([]any, len(fields))
		for j, fd := range fields {
			g.Go(func() error {
				if fd.Members {
					ms, err := members(ctx, st, r.Access, rs[i].EntityID, fd.Field, MaxReverse)
					rows := make([]memberJSON, len(ms))
					for n, m := range ms {
						m.orgID = rs[i].ID
						rows[n] = m.json()
					}
					res[i][j] = rows
					return err
				}
				links, _, err := store.ReferencesOf(st).Referrers(ctx, rs[i].CampaignID, rs[i].EntityID, fd.Field, admin, MaxReverse)
				ids := make([]int64, len(links))
				for n, l := range links {
					ids[n] = l.ID
				}
				res[i][j] = ids
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[int64]map[string]any, len(rs))
	for i := range rs {
		m := make(map[string]any, len(fields))
		for j, fd := range fields {
			m[fd.Name] = res[i][j]
		}
		out[rs[i].ID] = m
	}
	return out, nil
}
