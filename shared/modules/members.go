package modules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/modules/spec"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Organisation members (Kanka's organisation_members). A membership is a reference of the
// character's (its field `organisations`, spec.Ref.Membership) to the organisation, carrying
// the membership's role, pin, status, boss and privacy as its data: the kernel keeps it exact
// through either record's trash, restore, privacy change and purge, the character answers its
// memberships from its home (`organisations` with related=1), and the organisation its members
// from the links in its partition (`members`, and the paged sub-resource). A member's id is its
// character's entity id: a character is a member of an organisation once.

// MaxMembers bounds the members an organisation holds (each a link read by its member list).
const MaxMembers = 5000

// Kanka's member pins (OrganisationMemberPin) and statuses (OrganisationMemberStatus).
const (
	maxMemberPin    = 3 // 0 none, 1 on the character, 2 on the organisation, 3 both
	maxMemberStatus = 2 // 0 active, 1 inactive, 2 unknown
	maxRoleLength   = 45
)

// memberJSON is Kanka's OrganisationMemberResource.
type memberJSON struct {
	ID             int64   `json:"id"`
	OrganisationID int64   `json:"organisation_id"`
	CharacterID    int64   `json:"character_id"`
	Role           *string `json:"role"`
	PinID          *int64  `json:"pin_id"`
	StatusID       int64   `json:"status_id"`
	ParentID       *int64  `json:"parent_id"`
	IsPrivate      bool    `json:"is_private"`
	CreatedAt      string  `json:"created_at"`
	UpdatedAt      string  `json:"updated_at"`
	CreatedBy      *int64  `json:"created_by"`
	UpdatedBy      *int64  `json:"updated_by"`
}

// member is a membership as its data holds it.
type member struct {
	characterEID, characterID int64
	orgEID, orgID             int64
	role                      string
	pin                       *int64
	status                    int64
	parent                    *int64
	private                   bool
	created, updated          string
}

func (m member) data() map[string]any {
	d := map[string]any{"status_id": m.status, "is_private": m.private, "created_at": m.created, "updated_at": m.updated,
		"organisation_id": m.orgID, "character_id": m.characterID}
	if m.role != "" {
		d["role"] = m.role
	}
	if m.pin != nil {
		d["pin_id"] = *m.pin
	}
	if m.parent != nil {
		d["parent_id"] = *m.parent
	}
	return d
}

func memberOf(d map[string]any, characterEID, orgEID int64) member {
	m := member{characterEID: characterEID, orgEID: orgEID}
	m.role, _ = d["role"].(string)
	m.status = dataInt(d["status_id"])
	m.private, _ = d["is_private"].(bool)
	m.created, _ = d["created_at"].(string)
	m.updated, _ = d["updated_at"].(string)
	m.orgID, m.characterID = dataInt(d["organisation_id"]), dataInt(d["character_id"])
	if v, ok := d["pin_id"]; ok {
		n := dataInt(v)
		m.pin = &n
	}
	if v, ok := d["parent_id"]; ok {
		n := dataInt(v)
		m.parent = &n
	}
	return m
}

func dataInt(v any) int64 {
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

func (m member) json() memberJSON {
	j := memberJSON{ID: m.characterEID, OrganisationID: m.orgID, CharacterID: m.characterID, PinID: m.pin, StatusID: m.status,
		ParentID: m.parent, IsPrivate: m.private, CreatedAt: m.created, UpdatedAt: m.updated}
	if m.role != "" {
		r := m.role
		j.Role = &r
	}
	return j
}

// membershipField is the character field holding memberships ("" when none is declared).
func membershipField() (spec.Ref, *spec.Declared, bool) {
	for _, d := range spec.All {
		for _, f := range d.Refs {
			if f.Membership {
				return f, d, true
			}
		}
	}
	return spec.Ref{}, nil, false
}

// members reads the visible members of organisation entity orgEID (at most MaxMembers), in
// their characters' entity order: a private membership for admins only, as the kernel leaves
// out private and trashed characters.
func members(ctx context.Context, st *store.Store, a domain.Access, orgEID int64, field string, limit int) ([]member, error) {
	links, _, err := store.ReferencesOf(st).Referrers(ctx, a.CampaignID, orgEID, field, a.IsAdmin(), limit)
	if err != nil {
		return nil, err
	}
	out := make([]member, 0, len(links))
	for _, l := range links {
		m := memberOf(l.Data, l.EntityID, orgEID)
		m.characterID = l.ID
		if m.private && !a.IsAdmin() {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// memberRoutes serves organisations/{id}/organisation_members on the module of the
// memberships' target.
type memberRoutes struct {
	org, char *storage
	field     spec.Ref
}

func mountMembers(api *httpapi.API, org, char *storage, field spec.Ref) {
	h := memberRoutes{org: org, char: char, field: field}
	collection := org.k.Path + "/{id}/organisation_members"
	item := collection + "/{member}"
	httpapi.MountList(api, collection, httpapi.List[member, *Record, memberJSON]{
		Parent:   h.organisation,
		ParentID: func(o *Record) int64 { return o.EntityID },
		Filters:  domain.FilterChildren,
		Read: func(r *httpapi.Request, o *Record, _ domain.Filter, page domain.PageRequest) (domain.Page[member], error) {
			ms, err := members(r.Context(), h.org.st, r.Access, o.EntityID, h.field.Name, MaxMembers)
			if err != nil {
				return domain.Page[member]{}, err
			}
			return domain.PageOf(ms, page, func(m *member) int64 { return m.characterEID }), nil
		},
		Render: func(m *member) memberJSON { return m.json() },
	})
	api.Handle("POST", collection, h.create)
	api.Handle("GET", item, h.show)
	api.Handle("PUT", item, h.update)
	api.Handle("PATCH", item, h.update)
	api.Handle("DELETE", item, h.delete)
}

// organisation is the path's organisation, which the caller must see.
func (h memberRoutes) organisation(r *httpapi.Request) (*Record, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	o, err := h.org.get(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(o.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return o, err
}

// find is the path's member of organisation o, which the caller must see.
func (h memberRoutes) find(r *httpapi.Request, o *Record) (member, error) {
	id, err := r.PathID("member")
	if err != nil {
		return member{}, err
	}
	ms, err := members(r.Context(), h.org.st, r.Access, o.EntityID, h.field.Name, MaxMembers)
	if err != nil {
		return member{}, err
	}
	i := slices.IndexFunc(ms, func(m member) bool { return m.characterEID == id })
	if i < 0 {
		return member{}, apperr.ErrNotFound
	}
	return ms[i], nil
}

func (h memberRoutes) show(r *httpapi.Request) (httpapi.Reply, error) {
	o, err := h.organisation(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	m, err := h.find(r, o)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(m.json()), nil
}

// apply reads a member's fields from the body over m (Kanka's StoreOrganisationMember): the
// character on create only, role, pin, status, boss (a member of the organisation) and
// privacy (admins only make a membership private).
func (h memberRoutes) apply(r *httpapi.Request, in domain.Input, o *Record, m *member, create bool) (*domain.Entity, error) {
	rd := domain.NewReader(in)
	var character *domain.Entity
	if v := rd.ID("character_id"); create {
		rd.Required("character_id", v.Present())
		if v.Present() && !rd.Errs.Has("character_id") {
			c, err := h.char.get(r.Context(), r.Access.CampaignID, v.Value)
			switch {
			case errors.Is(err, apperr.ErrNotFound) || err == nil && !r.Access.CanSee(c.IsPrivate):
				rd.Fail("character_id", "The selected character id is invalid.")
			case err != nil:
				return nil, err
			default:
				character = &domain.Entity{ID: c.EntityID, ChildID: c.ID}
			}
		}
	} else if v.Present() && v.Value != m.characterID {
		rd.Fail("character_id", "A member's character cannot change: delete the member and add the other character.")
	}
	if v := rd.String("role", maxRoleLength); v.Set && !rd.Errs.Has("role") {
		m.role = strings.TrimSpace(v.Value)
	}
	if v := rd.Int("pin_id", 0, maxMemberPin); v.Set && !rd.Errs.Has("pin_id") {
		m.pin = nil
		if v.Present() {
			n := v.Value
			m.pin = &n
		}
	}
	if v := rd.Int("status_id", 0, maxMemberStatus); v.Set && !rd.Errs.Has("status_id") {
		m.status = 0
		if v.Present() {
			m.status = v.Value
		}
	}
	was := m.private
	if v := rd.Bool("is_private"); v.Present() {
		m.private = v.Value
	}
	if v := rd.ID("parent_id"); v.Set && !rd.Errs.Has("parent_id") {
		m.parent = nil
		if v.Present() {
			ms, err := members(r.Context(), h.org.st, r.Access, o.EntityID, h.field.Name, MaxMembers)
			if err != nil {
				return nil, err
			}
			if v.Value == m.characterEID || (character != nil && v.Value == character.ID) ||
				!slices.ContainsFunc(ms, func(x member) bool { return x.characterEID == v.Value }) {
				rd.Fail("parent_id", "The selected parent id is invalid.")
			} else {
				n := v.Value
				m.parent = &n
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if err := r.Access.CheckPrivacy(was, m.private); err != nil {
		return nil, err
	}
	return character, nil
}

// save writes membership m on its character (its field's reference to the organisation);
// remove drops it.
func (h memberRoutes) save(r *httpapi.Request, m member, remove bool) error {
	_, err := store.ReferencesOf(h.char.st).Edit(r.Context(), r.Access.CampaignID, m.characterEID, r.Access.IsAdmin(), func(o *domain.Owner) error {
		var next []domain.Reference
		for _, ref := range o.Refs {
			if ref.Field == h.field.Name && ref.EntityID != m.orgEID {
				next = append(next, ref)
			}
		}
		if !remove {
			next = append(next, domain.Reference{Field: h.field.Name, EntityID: m.orgEID, Data: m.data()})
		}
		o.Refs = domain.SetRefs(o.Refs, h.field.Name, next)
		return nil
	})
	return err
}

func (h memberRoutes) create(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	o, err := h.organisation(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var m member
	character, err := h.apply(r, in, o, &m, true)
	if err != nil {
		return httpapi.Reply{}, err
	}
	ms, err := members(r.Context(), h.org.st, r.Access, o.EntityID, h.field.Name, MaxMembers)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if slices.ContainsFunc(ms, func(x member) bool { return x.characterEID == character.ID }) {
		return httpapi.Reply{}, apperr.Invalid("character_id", "The character is already a member of the organisation.")
	}
	if len(ms) >= MaxMembers {
		return httpapi.Reply{}, apperr.Invalid("character_id", fmt.Sprintf("An organisation may not have more than %d members.", MaxMembers))
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	m.characterEID, m.characterID, m.orgEID, m.orgID, m.created, m.updated = character.ID, character.ChildID, o.EntityID, o.ID, now, now
	return r.Commit(func() error { return h.save(r, m, false) }, func() (httpapi.Reply, error) { return httpapi.One(m.json()), nil })
}

func (h memberRoutes) update(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	o, err := h.organisation(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	m, err := h.find(r, o)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	if _, err := h.apply(r, in, o, &m, false); err != nil {
		return httpapi.Reply{}, err
	}
	m.updated = time.Now().UTC().Format(time.RFC3339Nano)
	return r.Commit(func() error { return h.save(r, m, false) }, func() (httpapi.Reply, error) { return httpapi.One(m.json()), nil })
}

// delete removes the member; the members it was the boss of keep no boss (Kanka's set null).
func (h memberRoutes) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	o, err := h.organisation(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	m, err := h.find(r, o)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return r.Commit(func() error {
		if err := h.save(r, m, true); err != nil {
			return err
		}
		ms, err := members(r.Context(), h.org.st, r.Access, o.EntityID, h.field.Name, MaxMembers)
		if err != nil {
			return err
		}
		for _, x := range ms {
			if x.parent != nil && *x.parent == m.characterEID {
				x.parent = nil
				if err := h.save(r, x, false); err != nil {
					return err
				}
			}
		}
		return nil
	}, func() (httpapi.Reply, error) { return httpapi.Deleted(m.characterEID), nil })
}

// renderMemberships is a character's memberships as Kanka's related=1 answers them
// (`organisations: {data: [...]}`), the private ones for admins only.
func renderMemberships(rec *Record, field string, a domain.Access) map[string]any {
	rows := []memberJSON{}
	for _, ref := range domain.RefsOf(rec.Refs, field, a.IsAdmin()) {
		m := memberOf(ref.Data, rec.EntityID, ref.EntityID)
		m.orgID, m.characterID = ref.ID, rec.ID
		if m.private && !a.IsAdmin() {
			continue
		}
		rows = append(rows, m.json())
	}
	return map[string]any{"data": rows}
}
