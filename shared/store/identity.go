package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/store/tokens"
)

// CampaignItem is a campaign's META item: every request's access reads it.
type CampaignItem struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	ID       int64  `dynamo:"id"`
	Name     string `dynamo:"name"`
	IsPublic bool   `dynamo:"is_public"`
	Boost    string `dynamo:"boost"`
	OwnerID  int64  `dynamo:"owner_id"`
	// What Kanka's campaign shape shows (layout 3); the migration fills them for older campaigns.
	Locale    string `dynamo:"locale,omitempty"`
	Entry     string `dynamo:"entry,omitempty"`
	ImageURL  string `dynamo:"image_url,omitempty"`
	CreatedAt string `dynamo:"created_at,omitempty"`
	UpdatedAt string `dynamo:"updated_at,omitempty"`
	Version   int64  `dynamo:"version,omitempty"`
}

// Campaign is the campaign the item holds.
func (ci CampaignItem) Campaign() *domain.Campaign {
	return &domain.Campaign{ID: ci.ID, Name: ci.Name, IsPublic: ci.IsPublic, Boost: domain.Boost(ci.Boost), OwnerID: ci.OwnerID,
		Locale: ci.Locale, Entry: ci.Entry, ImageURL: ci.ImageURL, CreatedAt: layout.ParseTime(ci.CreatedAt),
		UpdatedAt: layout.ParseTime(ci.UpdatedAt), Version: ci.Version}
}

// CampaignAccess reads the campaign and the user's membership in one BatchGetItem, strongly
// consistent so that a membership change applies to the very next request, together with the
// items the route reads (ahead), which the returned context carries for the request's later
// reads. A missing campaign is a nil *Campaign; a missing membership is a nil *Membership.
func (s *Store) CampaignAccess(ctx context.Context, cid, uid int64, ahead ...domain.Ref) (context.Context, *domain.Campaign, *domain.Membership, error) {
	cpk := layout.CampaignPK(cid)
	meta, member := layout.ItemKey{PK: cpk, SK: layout.MetaSK}, layout.ItemKey{PK: cpk, SK: layout.MemberSK(uid)}
	var extra []layout.ItemKey
	for _, ref := range ahead {
		extra = append(extra, refKeys(cid, uid, ref)...)
	}
	keys := make([]map[string]types.AttributeValue, 0, 2+len(extra))
	keys = append(keys, sdkKey(meta.PK, meta.SK), sdkKey(member.PK, member.SK))
	for _, k := range extra {
		keys = append(keys, sdkKey(k.PK, k.SK))
	}
	items, err := s.batchGetItems(ctx, true, keys)
	if err != nil {
		return ctx, nil, nil, err
	}
	read := make(map[layout.ItemKey]dynamo.Item, len(extra))
	for _, k := range extra {
		read[k] = nil // read ahead and absent, unless found below
	}
	var metaIt, memberIt dynamo.Item
	for _, it := range items {
		k := layout.KeyOfItem(it)
		switch k {
		case meta:
			metaIt = it
		case member:
			memberIt = it
		}
		if _, ok := read[k]; ok {
			read[k] = it
		}
	}
	ctx = withReadAhead(ctx, read)
	var c *domain.Campaign
	var m *domain.Membership
	if it := metaIt; it != nil {
		var ci CampaignItem
		if err := unmarshalItem(it, &ci); err != nil {
			return ctx, nil, nil, err
		}
		c = ci.Campaign()
	}
	if it := memberIt; it != nil {
		var mi layout.MemberItem
		if err := unmarshalItem(it, &mi); err != nil {
			return ctx, nil, nil, err
		}
		if mm := mi.Membership(); mm.Role != "" {
			m = &mm
		}
	}
	return ctx, c, m, nil
}

// Tokens are the token items, in their own package so that the authorizer links only them.
func (s *Store) Tokens() tokens.Table { return tokens.Table{DB: s.Client(), Name: s.table.Name()} }

// Tenancy on the kernel: users, campaigns and memberships, whose items every request's access
// reads (CampaignAccess). The campaigns family writes and lists them through these.

// UserItem is a user's profile; MemberItem a membership, under the campaign (its member list)
// and under the user (the user's campaigns).
type (
	UserItem   = layout.UserItem
	MemberItem = layout.MemberItem
)

// UserKey is user uid's profile.
func UserKey(uid int64) Key { return Key{PK: layout.UserPK(uid), SK: layout.MetaSK} }

// UserNameKey is the item that makes a user's name unique.
func UserNameKey(name string) Key { return Key{PK: layout.UserNamePK(name), SK: layout.MetaSK} }

// CampaignKey is campaign cid's META item.
func CampaignKey(cid int64) Key { return Key{PK: layout.CampaignPK(cid), SK: layout.MetaSK} }

// MemberKey is user uid's membership in campaign cid's member list.
func MemberKey(cid, uid int64) Key { return Key{PK: layout.CampaignPK(cid), SK: layout.MemberSK(uid)} }

// UserCampaignKey is the same membership in user uid's campaigns.
func UserCampaignKey(uid, cid int64) Key {
	return Key{PK: layout.UserPK(uid), SK: layout.CampaignPK(cid)}
}

// NextGlobalID advances the table's id sequence named sequence (users, campaigns).
func (s *Store) NextGlobalID(ctx context.Context, sequence string) (int64, error) {
	ids, err := s.nextIDs(ctx, layout.GlobalPK, sequence)
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// CountedList is a counted range of a partition's items, one audience (a campaign's members, a
// user's campaigns): a page of it costs what any list page costs.
type CountedList struct{ r layout.ListRange }

// MemberList is campaign cid's members, by user id; UserCampaignList user uid's campaigns, by
// campaign id.
func MemberList(cid int64) CountedList {
	return CountedList{layout.ListRange{PK: layout.CampaignPK(cid), Prefix: layout.MemberKind + "#", Counter: layout.CounterSK(layout.MemberKind), Attr: layout.ClassAll}}
}

func UserCampaignList(uid int64) CountedList {
	return CountedList{layout.ListRange{PK: layout.UserPK(uid), Prefix: layout.CampaignPrefix, Counter: layout.CounterSK(layout.CampaignKind), Attr: layout.ClassAll}}
}

// Page reads one page of list l (filtered by f), decoded as I.
func Page[I any, T any](ctx context.Context, s *Store, l CountedList, f domain.Filter, p domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	spec := listSpec{ranges: []layout.ListRange{l.r}}
	spec.filter(f)
	return listPage(ctx, s, spec, p, record)
}

// First reads the first n items of list l (all of them: n 0), strongly consistent, only the
// attributes project names if any.
func First[I any](ctx context.Context, s *Store, l CountedList, n int, project ...string) ([]I, error) {
	q := s.table.Get("pk", l.r.PK).Range("sk", dynamo.BeginsWith, l.r.Prefix).Consistent(true)
	if n > 0 {
		q = q.Limit(n)
	}
	if len(project) > 0 {
		q = q.Project(project...)
	}
	out, err := queryAll[I](ctx, q)
	return out, layout.Wrap(err)
}

// Count is the number of items of list l, from its counter (read ahead when the route
// declared it).
func (l CountedList) Count(ctx context.Context, s *Store) (int, error) {
	cs, err := s.readCounters(ctx, []layout.CounterKey{{PK: l.r.PK, SK: l.r.Counter}})
	if err != nil {
		return 0, err
	}
	return cs.get(l.r.PK, l.r.Counter, l.r.Attr), nil
}

// PutInList writes item, a new item of list l with id, on condition that it does not exist,
// and counts it in.
func (t Tx) PutInList(l CountedList, item any, id int64) {
	t.b.put(t.b.s.table.Put(item).If("attribute_not_exists(pk)"))
	t.b.count(layout.Slot{PK: l.r.PK, Counter: l.r.Counter, Attr: l.r.Attr, Id: id}, 1)
}

// SetIfExists sets attribute attr of item k to v, if the item exists.
func (t Tx) SetIfExists(k Key, attr string, v any) {
	t.b.update(t.b.s.table.Update("pk", k.PK).Range("sk", k.SK).Set(attr, v).If("attribute_exists(pk)"))
}
