package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Campaigns, memberships and profiles as Kanka's campaign routes read them (layout 3). A
// membership is two items written together: MEMBER#uid in the campaign's partition (its member
// list) and CAMPAIGN#c in the user's (the user's campaigns); each list is a counted range, so a
// page of either costs what any list page costs, and the counters are kept in the membership's
// transaction.

// Kinds of the membership ranges: the KIND of their keys and counters.
const (
	memberKind   = "MEMBER"   // CAMPAIGN#c MEMBER#uid, counted by COUNT#MEMBER
	campaignKind = "CAMPAIGN" // USER#uid CAMPAIGN#c, counted by COUNT#CAMPAIGN
)

// classAll counts a range that every reader of it sees whole (a campaign's members, a user's
// campaigns): no audience copies.
const classAll = "all"

func memberSlot(cid, uid int64) slot {
	return slot{pk: campaignPK(cid), sk: memberSK(uid), home: true, counter: counterSK(memberKind), attr: classAll, id: uid}
}

func userCampaignSlot(uid, cid int64) slot {
	return slot{pk: userPK(uid), sk: campaignPK(cid), home: true, counter: counterSK(campaignKind), attr: classAll, id: cid}
}

func memberRange(cid int64) listRange {
	return listRange{pk: campaignPK(cid), prefix: memberKind + "#", counter: counterSK(memberKind), attr: classAll}
}

func userCampaignRange(uid int64) listRange {
	return listRange{pk: userPK(uid), prefix: campaignPrefix, counter: counterSK(campaignKind), attr: classAll}
}

// setMember writes membership m in one transaction: both membership items (the user's name
// copied), and for a new membership the two counters and the user's last campaign. created,
// when set, is the META of a campaign created in the same transaction; otherwise the campaign
// must exist (ErrNotFound). A concurrent change of the same membership is retried.
func (s *Store) setMember(ctx context.Context, m domain.Membership, created *campaignItem) error {
	for attempt := 0; ; attempt++ {
		uk, mk := itemKey{userPK(m.UserID), metaSK}, itemKey{campaignPK(m.CampaignID), memberSK(m.UserID)}
		got, err := s.getItems(ctx, uk, mk)
		if err != nil {
			return err
		}
		var u userItem
		_, userExists := got[uk]
		if userExists {
			if err := dynamo.UnmarshalItem(got[uk], &u); err != nil {
				return err
			}
		}
		var prev *memberItem
		if it, ok := got[mk]; ok && created == nil {
			prev = &memberItem{}
			if err := dynamo.UnmarshalItem(it, prev); err != nil {
				return err
			}
		}
		now := formatTime(s.now())
		item := memberItem{PK: mk.pk, SK: mk.sk, CampaignID: m.CampaignID, UserID: m.UserID, Role: string(m.Role),
			Name: u.Name, CreatedAt: now, UpdatedAt: now}
		if prev != nil && prev.CreatedAt != "" {
			item.CreatedAt = prev.CreatedAt
		}
		mine := item
		us := userCampaignSlot(m.UserID, m.CampaignID)
		mine.PK, mine.SK = us.pk, us.sk
		b := s.newTx()
		if created != nil {
			b.put(s.table.Put(*created).If("attribute_not_exists(pk)"))
		} else {
			b.need(campaignPK(m.CampaignID), metaSK, apperr.ErrNotFound)
		}
		if prev == nil {
			b.put(s.table.Put(item).If("attribute_not_exists(pk)"))
			b.count(memberSlot(m.CampaignID, m.UserID), 1)
			b.put(s.table.Put(mine).If("attribute_not_exists(pk)"))
			b.count(us, 1)
			if userExists {
				b.update(s.table.Update("pk", uk.pk).Range("sk", uk.sk).Set("last_campaign_id", m.CampaignID).If("attribute_exists(pk)"))
			}
		} else {
			b.put(s.table.Put(item).If("'role' = ?", prev.Role))
			b.put(s.table.Put(mine))
		}
		err = b.run(ctx)
		if err == nil || !errors.Is(err, apperr.ErrConflict) || attempt == 2 {
			return err
		}
	}
}

// GetUser reads a user's profile; ErrNotFound when there is none.
func (s *Store) GetUser(ctx context.Context, uid int64) (domain.User, error) {
	var u userItem
	if err := s.getItem(ctx, userPK(uid), metaSK, &u); err != nil {
		return domain.User{}, err
	}
	return u.user(), nil
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
		page, err = listPage(ctx, s, listSpec{ranges: []listRange{r}}, p, func(mi memberItem) int64 { return mi.CampaignID })
		if err != nil {
			return out, err
		}
		ids = page.Items
	} else {
		var rows []memberItem
		err := s.table.Get("pk", r.pk).Range("sk", dynamo.BeginsWith, r.prefix).Project("campaign_id").Consistent(true).All(ctx, &rows)
		if err != nil {
			return out, wrap(err)
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
	keys := make([]itemKey, len(ids))
	for i, id := range ids {
		keys[i] = itemKey{campaignPK(id), metaSK}
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
	l := listSpec{ranges: []listRange{memberRange(cid)}}
	l.filter(domain.Filter{UpdatedAfter: since})
	return listPage(ctx, s, l, p, memberItem.membership)
}

// GetMember reads user uid's membership of campaign cid; ErrNotFound when it is not a member.
func (s *Store) GetMember(ctx context.Context, cid, uid int64) (*domain.Membership, error) {
	m, err := getRecord(ctx, s, campaignPK(cid), memberSK(uid), memberItem.membership)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// FirstMembers reads the campaign's first n members by user id (one Query of at most n items):
// what a campaign's `members` shows.
func (s *Store) FirstMembers(ctx context.Context, cid int64, n int) ([]domain.Membership, error) {
	var rows []memberItem
	r := memberRange(cid)
	err := s.table.Get("pk", r.pk).Range("sk", dynamo.BeginsWith, r.prefix).Consistent(true).Limit(n).All(ctx, &rows)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]domain.Membership, len(rows))
	for i, row := range rows {
		out[i] = row.membership()
	}
	return out, nil
}

// MemberCount is the campaign's number of members, from its counter (read ahead with the
// campaign access when the route declared domain.ReadMemberList).
func (s *Store) MemberCount(ctx context.Context, cid int64) (int, error) {
	r := memberRange(cid)
	cs, err := s.readCounters(ctx, []counterKey{{r.pk, r.counter}})
	if err != nil {
		return 0, err
	}
	return cs.get(r.pk, r.counter, r.attr), nil
}

// auditMembers checks the campaign's memberships against their users' partitions (Audit reads
// the campaign's items): each MEMBER#uid has its USER#uid CAMPAIGN#c twin with the same role,
// and each member's COUNT#CAMPAIGN counts the campaigns of its range. It reads each member's
// partition of campaigns (bounded by one user's campaigns).
func (s *Store) auditMembers(ctx context.Context, cid int64, items []dynamo.Item) ([]string, error) {
	var problems []string
	for _, it := range items {
		var m memberItem
		if err := dynamo.UnmarshalItem(it, &m); err != nil || m.PK != campaignPK(cid) || m.SK != memberSK(m.UserID) {
			continue
		}
		var rows []dynamo.Item
		if err := s.table.Get("pk", userPK(m.UserID)).Consistent(true).All(ctx, &rows); err != nil {
			return nil, wrap(err)
		}
		campaigns, counted, found := 0, 0, false
		for _, row := range rows {
			var r memberItem
			_ = dynamo.UnmarshalItem(row, &r)
			switch {
			case r.SK == counterSK(campaignKind):
				_ = dynamo.Unmarshal(row[classAll], &counted)
			case r.SK == campaignPK(cid):
				campaigns++
				found = true
				if r.Role != m.Role {
					problems = append(problems, fmt.Sprintf("member %d: role %s, its user's campaign item says %s", m.UserID, m.Role, r.Role))
				}
			case strings.HasPrefix(r.SK, campaignPrefix):
				campaigns++
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("member %d: no campaign item under its user", m.UserID))
		}
		if counted != campaigns {
			problems = append(problems, fmt.Sprintf("member %d: campaign counter %d, campaigns %d", m.UserID, counted, campaigns))
		}
	}
	return problems, nil
}
