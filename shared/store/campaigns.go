package store

import (
	"context"
	"sort"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Campaigns, memberships and profiles as Kanka's campaign routes read them (layout 3). A
// membership is two items written together: MEMBER#uid in the campaign's partition (its member
// list) and CAMPAIGN#c in the user's (the user's campaigns); each list is a counted range, so a
// page of either costs what any list page costs, and the counters are kept in the membership's
// transaction.

func memberSlot(cid, uid int64) layout.Slot {
	return layout.Slot{PK: layout.CampaignPK(cid), SK: layout.MemberSK(uid), Home: true, Counter: layout.CounterSK(layout.MemberKind), Attr: layout.ClassAll, Id: uid}
}

func userCampaignSlot(uid, cid int64) layout.Slot {
	return layout.Slot{PK: layout.UserPK(uid), SK: layout.CampaignPK(cid), Home: true, Counter: layout.CounterSK(layout.CampaignKind), Attr: layout.ClassAll, Id: cid}
}

func memberRange(cid int64) layout.ListRange {
	return layout.ListRange{PK: layout.CampaignPK(cid), Prefix: layout.MemberKind + "#", Counter: layout.CounterSK(layout.MemberKind), Attr: layout.ClassAll}
}

func userCampaignRange(uid int64) layout.ListRange {
	return layout.ListRange{PK: layout.UserPK(uid), Prefix: layout.CampaignPrefix, Counter: layout.CounterSK(layout.CampaignKind), Attr: layout.ClassAll}
}

// setMember writes membership m in one transaction: both membership items (the user's name
// copied), and for a new membership the two counters and the user's last campaign. created,
// when set, is the META of a campaign created in the same transaction; otherwise the campaign
// must exist (ErrNotFound). A concurrent change of the same membership is retried.
func (s *Store) setMember(ctx context.Context, m domain.Membership, created *campaignItem) error {
	return apperr.RetryConflicts(ctx, func() error {
		uk, mk := layout.ItemKey{PK: layout.UserPK(m.UserID), SK: layout.MetaSK}, layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.MemberSK(m.UserID)}
		got, err := s.getItems(ctx, uk, mk)
		if err != nil {
			return err
		}
		var u layout.UserItem
		_, userExists := got[uk]
		if userExists {
			if err := dynamo.UnmarshalItem(got[uk], &u); err != nil {
				return err
			}
		}
		var prev *layout.MemberItem
		if it, ok := got[mk]; ok && created == nil {
			prev = &layout.MemberItem{}
			if err := dynamo.UnmarshalItem(it, prev); err != nil {
				return err
			}
		}
		now := layout.FormatTime(s.now())
		item := layout.MemberItem{PK: mk.PK, SK: mk.SK, CampaignID: m.CampaignID, UserID: m.UserID, Role: string(m.Role),
			Name: u.Name, CreatedAt: now, UpdatedAt: now}
		if prev != nil && prev.CreatedAt != "" {
			item.CreatedAt = prev.CreatedAt
		}
		mine := item
		us := userCampaignSlot(m.UserID, m.CampaignID)
		mine.PK, mine.SK = us.PK, us.SK
		b := s.newTx()
		if created != nil {
			b.put(s.table.Put(*created).If("attribute_not_exists(pk)"))
		} else {
			b.need(layout.CampaignPK(m.CampaignID), layout.MetaSK, apperr.ErrNotFound)
		}
		if prev == nil {
			b.put(s.table.Put(item).If("attribute_not_exists(pk)"))
			b.count(memberSlot(m.CampaignID, m.UserID), 1)
			b.put(s.table.Put(mine).If("attribute_not_exists(pk)"))
			b.count(us, 1)
			if userExists {
				b.update(s.table.Update("pk", uk.PK).Range("sk", uk.SK).Set("last_campaign_id", m.CampaignID).If("attribute_exists(pk)"))
			}
		} else {
			b.put(s.table.Put(item).If("'role' = ?", prev.Role))
			b.put(s.table.Put(mine))
		}
		return b.run(ctx)
	})
}

// GetUser reads a user's profile; ErrNotFound when there is none.
func (s *Store) GetUser(ctx context.Context, uid int64) (domain.User, error) {
	var u layout.UserItem
	if err := s.getItem(ctx, layout.UserPK(uid), layout.MetaSK, &u); err != nil {
		return domain.User{}, err
	}
	return u.User(), nil
}

// ListUserCampaigns reads one page of the campaigns user uid belongs to, by campaign id: the
// user's counted range (counter and Query, as every list page), then the page's campaigns in
// one BatchGetItem: 3 round trips. With since (lastSync, on the campaign's updated_at) the
// user's memberships are read whole (bounded by the campaigns of one user) and filtered.
func (s *Store) ListUserCampaigns(ctx context.Context, uid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Campaign], error) {
	out := domain.Page[domain.Campaign]{Items: []domain.Campaign{}}
	r := userCampaignRange(uid)
	var ids []int64
	var page domain.Page[int64]
	if since == nil {
		var err error
		page, err = listPage(ctx, s, listSpec{ranges: []layout.ListRange{r}}, p, func(mi layout.MemberItem) int64 { return mi.CampaignID })
		if err != nil {
			return out, err
		}
		ids = page.Items
	} else {
		var rows []layout.MemberItem
		err := s.table.Get("pk", r.PK).Range("sk", dynamo.BeginsWith, r.Prefix).Project("campaign_id").Consistent(true).All(ctx, &rows)
		if err != nil {
			return out, layout.Wrap(err)
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
func (s *Store) getCampaigns(ctx context.Context, ids []int64) (map[int64]*domain.Campaign, error) {
	keys := make([]layout.ItemKey, len(ids))
	for i, id := range ids {
		keys[i] = layout.ItemKey{PK: layout.CampaignPK(id), SK: layout.MetaSK}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*domain.Campaign, len(got))
	for _, it := range got {
		var ci campaignItem
		if err := dynamo.UnmarshalItem(it, &ci); err != nil {
			return nil, err
		}
		out[ci.ID] = ci.campaign()
	}
	return out, nil
}

// ListMembers reads one page of the campaign's members, by user id, from its counted range (the
// counter read ahead with the campaign access): 2 round trips. since (lastSync) filters on the
// membership's updated_at, reading the range once (bounded by the campaign's members).
func (s *Store) ListMembers(ctx context.Context, cid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Membership], error) {
	l := listSpec{ranges: []layout.ListRange{memberRange(cid)}}
	l.filter(domain.Filter{UpdatedAfter: since})
	return listPage(ctx, s, l, p, layout.MemberItem.Membership)
}

// GetMember reads user uid's membership of campaign cid; ErrNotFound when it is not a member.
func (s *Store) GetMember(ctx context.Context, cid, uid int64) (*domain.Membership, error) {
	m, err := getRecord(ctx, s, layout.CampaignPK(cid), layout.MemberSK(uid), layout.MemberItem.Membership)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// FirstMembers reads the campaign's first n members by user id (one Query of at most n items):
// what a campaign's `members` shows.
func (s *Store) FirstMembers(ctx context.Context, cid int64, n int) ([]domain.Membership, error) {
	var rows []layout.MemberItem
	r := memberRange(cid)
	err := s.table.Get("pk", r.PK).Range("sk", dynamo.BeginsWith, r.Prefix).Consistent(true).Limit(n).All(ctx, &rows)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	out := make([]domain.Membership, len(rows))
	for i, row := range rows {
		out[i] = row.Membership()
	}
	return out, nil
}

// MemberCount is the campaign's number of members, from its counter (read ahead with the
// campaign access when the route declared ReadMemberList).
func (s *Store) MemberCount(ctx context.Context, cid int64) (int, error) {
	r := memberRange(cid)
	cs, err := s.readCounters(ctx, []layout.CounterKey{{PK: r.PK, SK: r.Counter}})
	if err != nil {
		return 0, err
	}
	return cs.get(r.PK, r.Counter, r.Attr), nil
}
