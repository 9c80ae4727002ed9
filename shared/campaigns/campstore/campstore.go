// Package campstore is the campaigns family's storage: users, campaigns and memberships on the
// kernel (package store), whose items every request's access reads. A membership is two items
// written together: MEMBER#uid in the campaign's partition (its member list) and CAMPAIGN#c in
// the user's (the user's campaigns); each list is a counted range, so a page of either costs
// what any list page costs, and the counters are kept in the membership's transaction.
package campstore

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Campaigns is the family's storage over the kernel.
type Campaigns struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Campaigns { return &Campaigns{st} }

// EnsureUser returns the user called name, creating it when new.
func (s *Campaigns) EnsureUser(ctx context.Context, name string) (domain.User, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > domain.MaxNameLength {
		return domain.User{}, apperr.Invalid("user", "The user must be a name of 1 to 191 characters.")
	}
	var user domain.User
	err := apperr.RetryConflicts(ctx, func() error { // a concurrent creator won: read theirs
		var u store.UserItem
		err := s.GetItem(ctx, store.UserNameKey(name), &u)
		if err == nil {
			user = domain.User{ID: u.ID, Name: u.Name}
			return nil
		}
		if !errors.Is(err, apperr.ErrNotFound) {
			return err
		}
		id, err := s.NextGlobalID(ctx, "user")
		if err != nil {
			return err
		}
		nk, mk := store.UserNameKey(name), store.UserKey(id)
		err = s.Write(ctx, store.Step(func(t store.Tx) {
			t.PutIf(store.UserItem{PK: nk.PK, SK: nk.SK, ID: id, Name: name}, "attribute_not_exists(pk)")
			t.Put(store.UserItem{PK: mk.PK, SK: mk.SK, ID: id, Name: name})
		}))
		if err == nil {
			user = domain.User{ID: id, Name: name}
		}
		return err
	})
	if err != nil {
		return domain.User{}, err
	}
	return user, nil
}

// CreateCampaign creates a campaign owned by owner, who becomes its admin (setMember).
func (s *Campaigns) CreateCampaign(ctx context.Context, c domain.Campaign) (domain.Campaign, error) {
	id, err := s.NextGlobalID(ctx, "campaign")
	if err != nil {
		return c, err
	}
	c.ID = id
	if c.Boost == "" {
		c.Boost = domain.BoostNone
	}
	if c.Locale == "" {
		c.Locale = "en"
	}
	c.Entry = sanitize.HTML(c.Entry)
	now := s.Now()
	c.CreatedAt, c.UpdatedAt, c.Version = now, now, 1
	k := store.CampaignKey(c.ID)
	item := store.CampaignItem{PK: k.PK, SK: k.SK, ID: c.ID, Name: c.Name, IsPublic: c.IsPublic, Boost: string(c.Boost), OwnerID: c.OwnerID,
		Locale: c.Locale, Entry: c.Entry, ImageURL: c.ImageURL, CreatedAt: store.FormatTime(c.CreatedAt), UpdatedAt: store.FormatTime(c.UpdatedAt), Version: 1}
	return c, s.setMember(ctx, domain.Membership{CampaignID: c.ID, UserID: c.OwnerID, Role: domain.RoleAdmin}, &item)
}

// SetMember gives user a role in the campaign, replacing any role it had.
func (s *Campaigns) SetMember(ctx context.Context, m domain.Membership) error {
	return s.setMember(ctx, m, nil)
}

// setMember writes membership m in one transaction: both membership items (the user's name
// copied), and for a new membership the two counters and the user's last campaign. created,
// when set, is the META of a campaign created in the same transaction; otherwise the campaign
// must exist (ErrNotFound). A concurrent change of the same membership is retried.
func (s *Campaigns) setMember(ctx context.Context, m domain.Membership, created *store.CampaignItem) error {
	return apperr.RetryConflicts(ctx, func() error {
		uk, mk := store.UserKey(m.UserID), store.MemberKey(m.CampaignID, m.UserID)
		got, err := s.GetItems(ctx, uk, mk)
		if err != nil {
			return err
		}
		var u store.UserItem
		_, userExists := got[uk]
		if userExists {
			if err := store.UnmarshalItem(got[uk], &u); err != nil {
				return err
			}
		}
		var prev *store.MemberItem
		if it, ok := got[mk]; ok && created == nil {
			prev = &store.MemberItem{}
			if err := store.UnmarshalItem(it, prev); err != nil {
				return err
			}
		}
		now := store.FormatTime(s.Now())
		item := store.MemberItem{PK: mk.PK, SK: mk.SK, CampaignID: m.CampaignID, UserID: m.UserID, Role: string(m.Role),
			Name: u.Name, CreatedAt: now, UpdatedAt: now}
		if prev != nil && prev.CreatedAt != "" {
			item.CreatedAt = prev.CreatedAt
		}
		mine := item
		uc := store.UserCampaignKey(m.UserID, m.CampaignID)
		mine.PK, mine.SK = uc.PK, uc.SK
		return s.Write(ctx, store.Step(func(t store.Tx) {
			if created != nil {
				t.PutIf(*created, "attribute_not_exists(pk)")
			} else {
				t.Need(store.CampaignKey(m.CampaignID), apperr.ErrNotFound)
			}
			if prev != nil {
				t.PutIf(item, "'role' = ?", prev.Role)
				t.Put(mine)
				return
			}
			t.PutInList(store.MemberList(m.CampaignID), item, m.UserID)
			t.PutInList(store.UserCampaignList(m.UserID), mine, m.CampaignID)
			if userExists {
				t.SetIfExists(uk, "last_campaign_id", m.CampaignID)
			}
		}))
	})
}

// UserCampaigns lists the ids of the campaigns user belongs to.
func (s *Campaigns) UserCampaigns(ctx context.Context, uid int64) ([]int64, error) {
	rows, err := store.First[store.MemberItem](ctx, s.Store, store.UserCampaignList(uid), 0)
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.CampaignID
	}
	return ids, err
}

// GetUser reads a user's profile; ErrNotFound when there is none.
func (s *Campaigns) GetUser(ctx context.Context, uid int64) (domain.User, error) {
	var u store.UserItem
	if err := s.GetItem(ctx, store.UserKey(uid), &u); err != nil {
		return domain.User{}, err
	}
	return u.User(), nil
}

// ListUserCampaigns reads one page of the campaigns user uid belongs to, by campaign id: the
// user's counted range (counter and Query, as every list page), then the page's campaigns in
// one BatchGetItem: 3 round trips. With since (lastSync, on the campaign's updated_at) the
// user's memberships are read whole (bounded by the campaigns of one user) and filtered.
func (s *Campaigns) ListUserCampaigns(ctx context.Context, uid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Campaign], error) {
	out := domain.Page[domain.Campaign]{Items: []domain.Campaign{}}
	l := store.UserCampaignList(uid)
	var ids []int64
	var page domain.Page[int64]
	if since == nil {
		var err error
		page, err = store.Page(ctx, s.Store, l, domain.Filter{}, p, func(mi store.MemberItem) int64 { return mi.CampaignID })
		if err != nil {
			return out, err
		}
		ids = page.Items
	} else {
		rows, err := store.First[store.MemberItem](ctx, s.Store, l, 0, "campaign_id")
		if err != nil {
			return out, err
		}
		for _, row := range rows {
			ids = append(ids, row.CampaignID)
		}
	}
	cs, err := s.getCampaigns(ctx, ids)
	if err != nil {
		return out, err
	}
	if since == nil {
		out.Total, out.Next = page.Total, page.Next
		for i, id := range ids {
			if c, ok := cs[id]; ok { // a membership outliving its campaign: never written
				out.Items = append(out.Items, *c)
				out.Cursors = append(out.Cursors, page.Cursors[i])
			}
		}
		return out, nil
	}
	var all []domain.Campaign
	for _, id := range ids {
		if c, ok := cs[id]; ok && c.UpdatedAt.After(*since) {
			all = append(all, *c)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	res := domain.PageOf(all, p, func(c *domain.Campaign) int64 { return c.ID })
	if res.Items == nil {
		res.Items = []domain.Campaign{}
	}
	return res, nil
}

// getCampaigns reads campaigns by id, 100 a BatchGetItem; missing ones are absent.
func (s *Campaigns) getCampaigns(ctx context.Context, ids []int64) (map[int64]*domain.Campaign, error) {
	keys := make([]store.Key, len(ids))
	for i, id := range ids {
		keys[i] = store.CampaignKey(id)
	}
	got, err := s.GetItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*domain.Campaign, len(got))
	for _, it := range got {
		var ci store.CampaignItem
		if err := store.UnmarshalItem(it, &ci); err != nil {
			return nil, err
		}
		out[ci.ID] = ci.Campaign()
	}
	return out, nil
}

// ListMembers reads one page of the campaign's members, by user id, from its counted range (the
// counter read ahead with the campaign access): 2 round trips. since (lastSync) filters on the
// membership's updated_at, reading the range once (bounded by the campaign's members).
func (s *Campaigns) ListMembers(ctx context.Context, cid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Membership], error) {
	return store.Page(ctx, s.Store, store.MemberList(cid), domain.Filter{UpdatedAfter: since}, p, store.MemberItem.Membership)
}

// GetMember reads user uid's membership of campaign cid; ErrNotFound when it is not a member.
func (s *Campaigns) GetMember(ctx context.Context, cid, uid int64) (*domain.Membership, error) {
	var mi store.MemberItem
	if err := s.GetItem(ctx, store.MemberKey(cid, uid), &mi); err != nil {
		return nil, err
	}
	m := mi.Membership()
	return &m, nil
}

// FirstMembers reads the campaign's first n members by user id (one Query of at most n items):
// what a campaign's `members` shows.
func (s *Campaigns) FirstMembers(ctx context.Context, cid int64, n int) ([]domain.Membership, error) {
	rows, err := store.First[store.MemberItem](ctx, s.Store, store.MemberList(cid), n)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Membership, len(rows))
	for i, row := range rows {
		out[i] = row.Membership()
	}
	return out, nil
}

// MemberCount is the campaign's number of members, from its counter (read ahead with the
// campaign access when the route declared ReadMemberList).
func (s *Campaigns) MemberCount(ctx context.Context, cid int64) (int, error) {
	return store.MemberList(cid).Count(ctx, s.Store)
}
