package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// References between records (DESIGN 3.6). An owner record's references (domain.Owner.Refs: a
// character's races, a journal's author) are kept on its home, and each has a link in its
// target's entity partition (layout/refs.go). A write resolves the references it adds (one
// BatchGetItem: a target named by its module id is read at its home, one named by its entity
// at its entity), refuses one that names no live record of the campaign or, for a writer who
// is not an admin, a private one (a 422 naming field.N), and puts each new link in the record's
// transaction beside a check that its target lives with the privacy read: no link outlives its
// target's trash or misses its privacy change. A writer who is not an admin neither sees nor
// drops the private references; nobody sees or drops those whose target is in the trash.
//
// The target's changes re-place its referrers, found through its links: its trash hides the
// reference (Hidden), its restore shows it again, its privacy change re-places it (Private, so
// that the public copy leaves it out), its purge drops it; each referrer's home and public copy
// are updated on condition of their version, in the same cascades (and with the same sweeper
// markers) as the relations'. The referrer's trash keeps its links (its restore needs them);
// its purge removes them (its tombstone names them).

// errRefChanged is a failed check of a reference's target: deleted or re-placed since read.
var errRefChanged = errors.New("store: a referenced record changed")

// refsChanged is a write's error after its retry: a target that changed again answers as a
// conflict (409, Retry-After).
func refsChanged(err error) error {
	if errors.Is(err, errRefChanged) {
		return apperr.ErrConflict
	}
	return err
}

// refPlan resolves and validates the references of next (prev nil: a create) and returns the
// step that moves their links. Kept references keep what is known of them; the private ones a
// writer who is not an admin cannot see, and the hidden ones, are kept whatever it sends.
func (s *Store) refPlan(ctx context.Context, k layout.KindSpec, m *domain.Meta, prev, next *domain.Owner) (func(*txBuilder), error) {
	var prevRefs []domain.Reference
	if prev != nil {
		prevRefs = prev.Refs
	}
	if len(prevRefs) == 0 && len(next.Refs) == 0 {
		return nil, nil
	}
	cid := m.CampaignID
	refs := make([]domain.Reference, 0, len(next.Refs))
	var fresh []int // positions in refs of the references to resolve
	index := map[string]int{}
	for _, r := range next.Refs {
		n := index[r.Field]
		index[r.Field] = n + 1
		name := refName(r, n)
		for _, o := range refs {
			if o.Same(r) {
				return nil, apperr.Invalid(name, "The "+name+" field has a duplicate value.")
			}
		}
		if i := slices.IndexFunc(prevRefs, r.Same); i >= 0 {
			kept := prevRefs[i]
			kept.Data, kept.Single = r.Data, r.Single
			refs = append(refs, kept)
			continue
		}
		if r.Free() {
			r.Private, r.Hidden = false, false
			refs = append(refs, r)
			continue
		}
		if (r.EntityID == 0 && (r.ID <= 0 || r.Type == "")) || (r.EntityID != 0 && r.EntityID == next.EntityID) {
			return nil, apperr.Invalid(name, "The selected "+name+" is invalid.")
		}
		r.Private, r.Hidden = false, false
		fresh = append(fresh, len(refs))
		refs = append(refs, r)
	}
	for _, r := range prevRefs {
		if (r.Hidden || (r.Private && !next.TagsByAdmin)) && !slices.ContainsFunc(refs, r.Same) {
			refs = append(refs, r)
		}
	}
	for field, n := range countRefs(refs) {
		if n > domain.MaxRefs {
			return nil, apperr.Invalid(field, fmt.Sprintf("The %s may not have more than %d items.", field, domain.MaxRefs))
		}
	}
	// The targets read: by entity (entity items) or by module id (their homes).
	keys := make([]layout.ItemKey, len(fresh))
	for i, at := range fresh {
		r := refs[at]
		if r.EntityID != 0 {
			keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, r.EntityID)}
			continue
		}
		tk, ok := layout.OwnerKindOf(r.Type)
		if !ok {
			return nil, fmt.Errorf("store: a reference to unknown type %q", r.Type)
		}
		keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(tk.Prefix, r.ID)}
	}
	var got map[layout.ItemKey]dynamo.Item
	if len(keys) > 0 {
		var err error
		if got, err = s.getItems(ctx, keys...); err != nil {
			return nil, err
		}
	}
	placed := map[int64]bool{} // each target's privacy as read: the check of its links
	for i, at := range fresh {
		r := &refs[at]
		raw, ok := got[keys[i]]
		var private bool
		if ok && r.EntityID != 0 {
			var e layout.EntityItem
			_ = dynamo.UnmarshalItem(raw, &e)
			if _, owner := layout.OwnerKindOf(e.Type); !owner {
				ok = false
			}
			r.Type, r.ID, private = e.Type, e.ChildID, e.LinksPrivate
		} else if ok {
			var h struct {
				EntityID  int64 `dynamo:"entity_id"`
				IsPrivate bool  `dynamo:"is_private"`
			}
			_ = dynamo.UnmarshalItem(raw, &h)
			r.EntityID, private = h.EntityID, h.IsPrivate
			ok = r.EntityID != 0 && r.EntityID != next.EntityID
		}
		if !ok || (private && !next.TagsByAdmin) {
			name := refName(*r, fieldIndex(refs, at))
			return nil, apperr.Invalid(name, "The selected "+name+" is invalid.")
		}
		r.Private = private
		if p, seen := placed[r.EntityID]; seen && p != private {
			return nil, errRefChanged
		}
		placed[r.EntityID] = private
	}
	next.Refs = refs
	return s.refLinks(k, m, prev, next, placed), nil
}

// refLinks is the step that puts the links of next's new references (each with the check that
// its target lives with the privacy read: placed) and deletes those of the references dropped.
func (s *Store) refLinks(k layout.KindSpec, m *domain.Meta, prev, next *domain.Owner, placed map[int64]bool) func(*txBuilder) {
	var prevRefs []domain.Reference
	if prev != nil {
		prevRefs = prev.Refs
	}
	// A link is put for a new reference and for one whose data changed (the link carries it);
	// a change of the referrer's privacy re-places its links in its own cascade
	// (placeOwnLinks), so that it fits a write whatever the references it holds.
	linked := func(r domain.Reference) bool {
		if r.Free() {
			return false
		}
		i := slices.IndexFunc(prevRefs, r.Same)
		return i < 0 || !reflect.DeepEqual(prevRefs[i].Data, r.Data)
	}
	return func(b *txBuilder) {
		cid, eid := m.CampaignID, next.EntityID // read when the step runs: after a create's ids are set
		checked := map[int64]bool{}
		byField := map[string]int{}
		for _, r := range next.Refs {
			if linked(r) {
				byField[r.Field]++
			}
		}
		for field, n := range byField {
			b.part(field, "references", n, func() {
				for _, r := range next.Refs {
					if r.Field != field || !linked(r) {
						continue
					}
					if _, read := placed[r.EntityID]; !read {
						placed[r.EntityID] = r.Private // a kept reference: its target as last placed
					}
					if !checked[r.EntityID] {
						checked[r.EntityID] = true
						b.needEntity(cid, r.EntityID, placed[r.EntityID], errRefChanged)
					}
					l := layout.RefLinkKey(cid, r.EntityID, eid, r.Field, r.Key)
					b.put(s.table.Put(layout.RefLink{PK: l.PK, SK: l.SK, Field: r.Field, Kind: k.Prefix, ID: m.ID, EntityID: eid, FromPrivate: next.IsPrivate, Data: r.Data, Key: r.Key}))
				}
			})
		}
		for _, r := range prevRefs {
			if !r.Free() && !slices.ContainsFunc(next.Refs, r.Same) {
				l := layout.RefLinkKey(cid, r.EntityID, eid, r.Field, r.Key)
				b.del(s.table.Delete("pk", l.PK).Range("sk", l.SK))
			}
		}
	}
}

// refName is the field an error about the n-th reference of its field names.
func refName(r domain.Reference, n int) string {
	if r.Single {
		return r.Field
	}
	return fmt.Sprintf("%s.%d", r.Field, n)
}

func countRefs(refs []domain.Reference) map[string]int {
	n := map[string]int{}
	for _, r := range refs {
		n[r.Field]++
	}
	return n
}

// fieldIndex is the position of refs[at] among the references of its field.
func fieldIndex(refs []domain.Reference, at int) int {
	n := 0
	for i := 0; i < at; i++ {
		if refs[i].Field == refs[at].Field {
			n++
		}
	}
	return n
}

// reviseReferrers applies revise to every reference to entity target in its referrers (found
// through its links), each referrer's home (live or in the trash) and public copy rewritten
// on condition of their version (a lost race reads again); revise answers false to drop the
// reference. Idempotent: a reference already as revise leaves it is not written.
func (s *Store) reviseReferrers(ctx context.Context, cid, target int64, revise func(*layout.RefAttr) bool) error {
	var links []layout.RefLink
	err := s.table.Get("pk", layout.EntityPK(cid, target)).Range("sk", dynamo.BeginsWith, layout.RefByPrefix).Consistent(true).All(ctx, &links)
	if err != nil {
		return layout.Wrap(err)
	}
	return s.reviseLinked(ctx, cid, target, links, revise)
}

// reviseLinked is reviseReferrers over the links of target already read.
func (s *Store) reviseLinked(ctx context.Context, cid, target int64, links []layout.RefLink, revise func(*layout.RefAttr) bool) error {
	if len(links) == 0 {
		return nil
	}
	type referrer struct {
		kind string
		id   int64
	}
	seen := map[referrer]bool{}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, l := range links {
		r := referrer{l.Kind, l.ID}
		if seen[r] {
			continue
		}
		seen[r] = true
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error { return s.reviseReferrer(wctx, cid, target, r.kind, r.id, revise) })
		})
	}
	return w.Wait()
}

// refHome is what a referrer's revision reads of its home.
type refHome struct {
	Version   int64            `dynamo:"version"`
	IsPrivate bool             `dynamo:"is_private"`
	EntityID  int64            `dynamo:"entity_id"`
	Refs      []layout.RefAttr `dynamo:"refs"`
}

func (s *Store) reviseReferrer(ctx context.Context, cid, target int64, kind string, id int64, revise func(*layout.RefAttr) bool) error {
	live := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(kind, id)}
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(kind, id)}
	got, err := s.getItems(ctx, live, trashed)
	if err != nil {
		return err
	}
	at, raw := live, got[live]
	if raw == nil {
		at, raw = trashed, got[trashed]
	}
	if raw == nil {
		return nil // purged: its purge removes its links
	}
	var h refHome
	if err := dynamo.UnmarshalItem(raw, &h); err != nil {
		return err
	}
	refs := make([]layout.RefAttr, 0, len(h.Refs))
	changed := false
	for _, r := range h.Refs {
		if r.EntityID != target {
			refs = append(refs, r)
			continue
		}
		before := r
		if !revise(&r) {
			changed = true
			continue
		}
		changed = changed || r.Hidden != before.Hidden || r.Private != before.Private
		refs = append(refs, r)
	}
	if !changed {
		return nil
	}
	b := s.newTx()
	b.update(setRefs(s.table.Update("pk", at.PK).Range("sk", at.SK), refs).Set("version", h.Version+1).If("'version' = ?", h.Version))
	if at == live {
		for _, sl := range layout.OwnerSlots(kind, cid, id, h.IsPrivate)[1:] {
			b.update(setRefs(s.table.Update("pk", sl.PK).Range("sk", sl.SK), layout.PublicRefs(refs)).Set("version", h.Version+1).If("attribute_exists(pk)"))
		}
	}
	return b.run(ctx)
}

// setRefs sets an item's references and their index.
func setRefs(u *dynamo.Update, refs []layout.RefAttr) *dynamo.Update {
	if len(refs) == 0 {
		u = u.Remove("refs")
	} else {
		u = u.Set("refs", refs)
	}
	if keys := layout.RefKeysOf(refs); len(keys) > 0 {
		return u.SetSet(layout.RefKeysAttr, keys)
	}
	return u.Remove(layout.RefKeysAttr)
}

// hideReferences hides the references to trashed entity e, and marks the links of its own
// references (reverse reads leave a trashed referrer out); showReferences undoes both after
// its restore, its references placed by its privacy; placeReferences re-places them when its
// privacy changes (and its own links: placeOwnLinks); dropReferences removes them before its
// purge.
// links are the links to e, read with its partition; own the links of its own references
// when its trashed home is at hand (nil: read it).
func (s *Store) hideReferences(ctx context.Context, e *layout.EntityItem, links []layout.RefLink, own []layout.RefTarget) error {
	if err := s.reviseLinked(ctx, e.CampaignID, e.ID, links, func(r *layout.RefAttr) bool { r.Hidden = true; return true }); err != nil {
		return err
	}
	if own == nil {
		var err error
		if own, err = s.ownLinks(ctx, e); err != nil {
			return err
		}
	}
	return s.markLinks(ctx, e, own, "from_hidden", true)
}

func (s *Store) showReferences(ctx context.Context, e *layout.EntityItem) error {
	private := e.IsPrivate || e.LinksPrivate
	if err := s.reviseReferrers(ctx, e.CampaignID, e.ID, func(r *layout.RefAttr) bool { r.Hidden, r.Private = false, private; return true }); err != nil {
		return err
	}
	return s.markOwnLinks(ctx, e, "from_hidden", false)
}

func (s *Store) placeReferences(ctx context.Context, cid, eid int64, private bool) error {
	return s.reviseReferrers(ctx, cid, eid, func(r *layout.RefAttr) bool { r.Private = private; return true })
}

func (s *Store) dropReferences(ctx context.Context, cid, eid int64) error {
	return s.reviseReferrers(ctx, cid, eid, func(*layout.RefAttr) bool { return false })
}

// placeOwnLinks re-places the links of the references of entity e's record as its privacy
// says, so that reverse reads (a family's members) leave a private referrer out for
// non-admins.
func (s *Store) placeOwnLinks(ctx context.Context, e *layout.EntityItem, private bool) error {
	return s.markOwnLinks(ctx, e, "from_private", private)
}

// markOwnLinks sets attr to v on the links of the references entity e's record holds (its
// home live or in the trash), each link updated on its own (a link removed meanwhile stays
// removed).
func (s *Store) markOwnLinks(ctx context.Context, e *layout.EntityItem, attr string, v bool) error {
	own, err := s.ownLinks(ctx, e)
	if err != nil {
		return err
	}
	return s.markLinks(ctx, e, own, attr, v)
}

// ownLinks are the links of the references entity e's record holds (its home live or in the
// trash): one read.
func (s *Store) ownLinks(ctx context.Context, e *layout.EntityItem) ([]layout.RefTarget, error) {
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return nil, nil
	}
	cid := e.CampaignID
	live := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, e.ChildID)}
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(k.Prefix, e.ChildID)}
	got, err := s.getItems(ctx, live, trashed)
	if err != nil {
		return nil, err
	}
	raw := got[live]
	if raw == nil {
		raw = got[trashed]
	}
	return refTargetsOfItem(raw), nil
}

// markLinks sets attr to v on links own of entity e's references.
func (s *Store) markLinks(ctx context.Context, e *layout.EntityItem, own []layout.RefTarget, attr string, v bool) error {
	cid := e.CampaignID
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, t := range own {
		w.Go(func() error {
			l := layout.RefLinkKey(cid, t.EntityID, e.ID, t.Field, t.Key)
			err := s.table.Update("pk", l.PK).Range("sk", l.SK).Set(attr, v).If("attribute_exists(pk) AND (attribute_not_exists($) OR $ <> ?)", attr, attr, v).Run(wctx)
			return ignoreCondition(layout.Wrap(err))
		})
	}
	return w.Wait()
}

// ownLinksGone is the cascade step of a referrer's purge: the links of its references.
func (s *Store) ownLinksGone(ctx context.Context, t layout.Tombstone) error {
	if len(t.Refs) == 0 {
		return nil
	}
	keys := make([]dynamo.Keyed, len(t.Refs))
	for i, r := range t.Refs {
		k := layout.RefLinkKey(t.CID, r.EntityID, t.EntityID, r.Field, r.Key)
		keys[i] = dynamo.Keys{k.PK, k.SK}
	}
	return s.batchDelete(ctx, keys)
}

// refTargetsOfItem are the links of the references a stored home holds (empty, not nil, for
// none).
func refTargetsOfItem(raw dynamo.Item) []layout.RefTarget {
	var refs []layout.RefAttr
	_ = dynamo.Unmarshal(raw["refs"], &refs)
	if out := layout.RefTargetsOf(refs); out != nil {
		return out
	}
	return []layout.RefTarget{}
}

// Referrer is a record that references another by one of its fields.
type Referrer = layout.RefLink

// Referrers reads the records referencing entity target by field (each link once, ordered by
// the referrer's entity id), the private ones for admins only, at most limit of them; more
// reports whether there are others.
func (r References) Referrers(ctx context.Context, cid, target int64, field string, admin bool, limit int) (out []Referrer, more bool, err error) {
	s := r.s
	q := s.table.Get("pk", layout.EntityPK(cid, target)).Range("sk", dynamo.BeginsWith, layout.RefByPrefix).Filter("'field' = ?", field)
	q = q.Filter("(attribute_not_exists('from_hidden') OR 'from_hidden' = ?)", false)
	if !admin {
		q = q.Filter("'from_private' = ?", false)
	}
	err = q.Limit(limit+1).All(ctx, &out)
	if err != nil {
		return nil, false, layout.Wrap(err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// References is the kernel's reading and writing of references for the families whose rows
// are references of other records (organisation members, inventory lines).
type References struct{ s *Store }

// ReferencesOf is kernel s's References.
func ReferencesOf(s *Store) References { return References{s} }

// Edit changes the references of entity eid's record (any owner kind) by edit, which gets
// the record's owner as stored (its references, its privacy) and changes its Refs: the new
// references are resolved and checked as a write's, and the home and public copy are
// rewritten with them in one transaction conditional on the version read, with the links'
// changes (version bumped, updated_at kept). byAdmin: the writer is an admin. It answers the
// owner as written; ErrNotFound when the entity is not a live owner record.
func (r References) Edit(ctx context.Context, cid, eid int64, byAdmin bool, edit func(o *domain.Owner) error) (*domain.Owner, error) {
	s := r.s
	var out *domain.Owner
	err := apperr.Retry(ctx, func(err error) bool { return errors.Is(err, errRefChanged) || apperr.IsConflict(err) }, func() error {
		o, err := s.editRefs(ctx, cid, eid, byAdmin, edit)
		out = o
		return err
	})
	return out, refsChanged(err)
}

func (s *Store) editRefs(ctx context.Context, cid, eid int64, byAdmin bool, edit func(o *domain.Owner) error) (*domain.Owner, error) {
	var e layout.EntityItem
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, eid), &e); err != nil {
		return nil, err
	}
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return nil, apperr.ErrNotFound
	}
	var h trashedHome
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(k.Prefix, e.ChildID), &h); err != nil {
		return nil, err
	}
	m, prev := h.Meta(), h.Owner()
	next := prev.Clone()
	next.TagsByAdmin = byAdmin
	if err := edit(&next); err != nil {
		return nil, err
	}
	links, err := s.refPlan(ctx, k, &m, &prev, &next)
	if err != nil || links == nil {
		return &next, err
	}
	refs := layout.RefAttrs(next.Refs)
	b := s.newTx()
	for i, sl := range k.Slots(&m, &next) {
		u := s.table.Update("pk", sl.PK).Range("sk", sl.SK).Set("version", m.Version+1)
		if i == 0 {
			b.update(setRefs(u, refs).If("'version' = ?", m.Version))
			continue
		}
		b.update(setRefs(u, layout.PublicRefs(refs)).If("attribute_exists(pk)"))
	}
	links(b)
	return &next, b.run(ctx)
}

// Owner reads entity eid and the references its record holds (its home, as stored: the
// caller answers what the reader may see). ErrNotFound when the entity is not a live owner
// record's.
func (r References) Owner(ctx context.Context, cid, eid int64) (*domain.Entity, []domain.Reference, error) {
	s := r.s
	var e layout.EntityItem
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, eid), &e); err != nil {
		return nil, nil, err
	}
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return nil, nil, apperr.ErrNotFound
	}
	var h struct {
		Refs []layout.RefAttr `dynamo:"refs"`
	}
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(k.Prefix, e.ChildID), &h, "pk", "refs"); err != nil {
		return nil, nil, err
	}
	return e.Entity(), layout.DomainRefs(h.Refs), nil
}

// EditRows changes the rows of field (references that are rows of their own: Reference.Key)
// of entity eid's record: each of put replaces the row of its key or is added, each key of
// drop is removed; the other rows stay as stored. At most domain.MaxRefs rows a field.
func (r References) EditRows(ctx context.Context, cid, eid int64, byAdmin bool, field string, put []domain.Reference, drop ...int64) error {
	_, err := r.Edit(ctx, cid, eid, byAdmin, func(o *domain.Owner) error {
		// The rows put come first, so that the kernel's refusal of one names its place in put.
		next := make([]domain.Reference, 0, len(put))
		for _, p := range put {
			p.Field = field
			next = append(next, p)
		}
		for _, x := range o.Refs {
			if x.Field == field && !slices.Contains(drop, x.Key) && !slices.ContainsFunc(put, func(p domain.Reference) bool { return p.Key == x.Key }) {
				next = append(next, x)
			}
		}
		if len(next) > domain.MaxRefs {
			return apperr.Invalid(field, fmt.Sprintf("An entity may not hold more than %d %s.", domain.MaxRefs, strings.ReplaceAll(field, "_", " ")))
		}
		o.Refs = domain.SetRefs(o.Refs, field, next)
		return nil
	})
	return err
}

// NextIDs takes n consecutive ids of the campaign's sequence for a field's rows; the first is
// returned.
func (r References) NextIDs(ctx context.Context, cid int64, sequence string, n int) (int64, error) {
	return r.s.NextIDs(ctx, cid, sequence, n)
}
