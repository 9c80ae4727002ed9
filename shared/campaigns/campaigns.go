// Package campaigns is Kanka's first screen (DESIGN.md 9): the caller's profile and campaigns,
// one campaign, its members, and Kanka's module list (entity types), read only:
//
//	/api/1.0/profile, /api/1.0/campaigns, /api/1.0/entity-types (and entity_types),
//	/api/1.0/campaigns/{campaign_id}, .../users, .../users/{user_id}, .../entity_types.
package campaigns

import (
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// MaxMembersShown bounds a campaign's `members`: the first ones by user id, with
// `members_count` beside them when there are more.
const MaxMembersShown = 100

// Register mounts the routes.
func Register(api *httpapi.API, kernel *store.Store) {
	h := handlers{st: campstore.New(kernel)}
	api.HandleAccount("/profile", h.profile)
	api.HandleAccount("/campaigns", h.list)
	api.HandleAccount("/entity-types", entityTypes)
	api.HandleAccount("/entity_types", entityTypes)
	api.Handle("GET", "", h.show, httpapi.ReadAhead(store.ReadMemberList, "", ""))
	api.Handle("GET", "/users", h.users, httpapi.ReadAhead(store.ReadMemberList, "", ""))
	api.Handle("GET", "/users/{user_id}", h.user)
	api.Handle("GET", "/entity_types", campaignEntityTypes)
}

type handlers struct{ st Store }

// profile is the token's user (Kanka's ProfileResource, both eras' fields).
func (h handlers) profile(r *httpapi.Request) (httpapi.Reply, error) {
	u, err := h.st.GetUser(r.Context(), r.Access.UserID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderProfile(u.WithDefaults(), r.RateLimit)), nil
}

// list is one page of the caller's campaigns; ?include=members adds each one's members (one
// Query per campaign of the page, concurrent).
func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := domain.ReadFilter(r.Query(), domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res, err := h.st.ListUserCampaigns(r.Context(), r.Access.UserID, f.UpdatedAfter, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	members := make([][]domain.Membership, len(res.Items))
	if r.Param("include") == "members" {
		g, ctx := errgroup.WithContext(r.Context())
		g.SetLimit(membersConcurrency)
		for i := range res.Items {
			g.Go(func() (err error) {
				members[i], err = h.st.FirstMembers(ctx, res.Items[i].ID, MaxMembersShown+1)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return httpapi.Reply{}, err
		}
	}
	out := make([]campaignJSON, len(res.Items))
	for i := range res.Items {
		out[i] = renderCampaign(r, &res.Items[i], entryParsedOnList)
		if members[i] != nil {
			out[i].showMembers(members[i], len(members[i]))
		}
	}
	return httpapi.Many(out, res.Total, res.Next, res.Cursors, page), nil
}

// membersConcurrency bounds the member Queries one campaigns page runs at once.
const membersConcurrency = 10

// entryParsedOnList is what Kanka's campaign list answers for entry_parsed.
const entryParsedOnList = "not available on the campaigns/ endpoint"

// show is the campaign of the path: members (every role) and, for a public campaign, anyone
// see it; members also see its members.
func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	c := r.Campaign
	parsed, err := r.ParseEntries(h.st, []httpapi.Entry{{Kind: "campaign", ID: c.ID, Text: c.Entry}})
	if err != nil {
		return httpapi.Reply{}, err
	}
	j := renderCampaign(r, c, parsed[0])
	if r.Access.IsMember() {
		ms, err := h.st.FirstMembers(r.Context(), c.ID, MaxMembersShown+1)
		if err != nil {
			return httpapi.Reply{}, err
		}
		n := len(ms)
		if n > MaxMembersShown {
			if n, err = h.st.MemberCount(r.Context(), c.ID); err != nil {
				return httpapi.Reply{}, err
			}
		}
		j.showMembers(ms, n)
	}
	return httpapi.One(j), nil
}

// users is one page of the campaign's members and their roles: members of every role may
// list them (issue 18; Kanka lets admins only), a public campaign's other readers may not.
func (h handlers) users(r *httpapi.Request) (httpapi.Reply, error) {
	if !r.Access.IsMember() {
		return httpapi.Reply{}, apperr.ErrForbidden
	}
	f, err := domain.ReadFilter(r.Query(), domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res, err := h.st.ListMembers(r.Context(), r.Access.CampaignID, f.UpdatedAfter, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, renderUser), nil
}

// user is one member of the campaign and its roles (Kanka's users/{user}): to the same readers
// as the list; a user who is not a member is a 404.
func (h handlers) user(r *httpapi.Request) (httpapi.Reply, error) {
	if !r.Access.IsMember() {
		return httpapi.Reply{}, apperr.ErrForbidden
	}
	uid, err := r.PathID("user_id")
	if err != nil {
		return httpapi.Reply{}, err
	}
	m, err := h.st.GetMember(r.Context(), r.Access.CampaignID, uid)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderUser(m)), nil
}

// entityTypes is Kanka's global module list (EntityTypeResource) of the modules Lorekeep serves.
func entityTypes(r *httpapi.Request) (httpapi.Reply, error) {
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res := domain.PageOf(domain.Modules, page, func(m *domain.Module) int64 { return int64(m.ID) })
	return httpapi.Page(res, page, func(m *domain.Module) entityTypeJSON {
		return entityTypeJSON{ID: m.ID, Code: m.Code, Singular: m.Singular, Plural: m.Plural, IsEnabled: true}
	}), nil
}

// campaignEntityTypes is a campaign's modules (Kanka's campaigns/{id}/entity_types): every
// module Lorekeep serves is enabled in every campaign.
func campaignEntityTypes(r *httpapi.Request) (httpapi.Reply, error) {
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res := domain.PageOf(domain.Modules, page, func(m *domain.Module) int64 { return int64(m.ID) })
	return httpapi.Page(res, page, func(m *domain.Module) campaignEntityTypeJSON {
		return campaignEntityTypeJSON{ID: m.ID, Code: m.Code, Singular: m.Singular, Plural: m.Plural,
			IsEnabled: true, IsNested: m.Nested, HasTable: true}
	}), nil
}
