package store

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/sanitize"
	"github.com/lorekeep/lorekeep/shared/token"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/store/tokens"
)

type campaignItem struct {
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

func (ci campaignItem) campaign() *domain.Campaign {
	return &domain.Campaign{ID: ci.ID, Name: ci.Name, IsPublic: ci.IsPublic, Boost: domain.Boost(ci.Boost), OwnerID: ci.OwnerID,
		Locale: ci.Locale, Entry: ci.Entry, ImageURL: ci.ImageURL, CreatedAt: layout.ParseTime(ci.CreatedAt),
		UpdatedAt: layout.ParseTime(ci.UpdatedAt), Version: ci.Version}
}

// EnsureUser returns the user called name, creating it when new.
func (s *Store) EnsureUser(ctx context.Context, name string) (domain.User, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > domain.MaxNameLength {
		return domain.User{}, apperr.Invalid("user", "The user must be a name of 1 to 191 characters.")
	}
	var user domain.User
	err := apperr.RetryConflicts(ctx, func() error { // a concurrent creator won: read theirs
		var u layout.UserItem
		err := s.getItem(ctx, layout.UserNamePK(name), layout.MetaSK, &u)
		if err == nil {
			user = domain.User{ID: u.ID, Name: u.Name}
			return nil
		}
		if !errors.Is(err, apperr.ErrNotFound) {
			return err
		}
		ids, err := s.nextIDs(ctx, layout.GlobalPK, "user")
		if err != nil {
			return err
		}
		u = layout.UserItem{PK: layout.UserNamePK(name), SK: layout.MetaSK, ID: ids[0], Name: name}
		meta := layout.UserItem{PK: layout.UserPK(ids[0]), SK: layout.MetaSK, ID: ids[0], Name: name}
		err = s.db.WriteTx().
			Put(s.table.Put(u).If("attribute_not_exists(pk)")).
			Put(s.table.Put(meta)).
			Run(ctx)
		if err == nil {
			user = domain.User{ID: u.ID, Name: name}
		}
		return layout.Wrap(err)
	})
	if err != nil {
		return domain.User{}, err
	}
	return user, nil
}

// CreateCampaign creates a campaign owned by owner, who becomes its admin (setMembers).
func (s *Store) CreateCampaign(ctx context.Context, c domain.Campaign) (domain.Campaign, error) {
	ids, err := s.nextIDs(ctx, layout.GlobalPK, "campaign")
	if err != nil {
		return c, err
	}
	c.ID = ids[0]
	if c.Boost == "" {
		c.Boost = domain.BoostNone
	}
	if c.Locale == "" {
		c.Locale = "en"
	}
	c.Entry = sanitize.HTML(c.Entry)
	c.CreatedAt, c.UpdatedAt, c.Version = s.now(), s.now(), 1
	item := campaignItem{PK: layout.CampaignPK(c.ID), SK: layout.MetaSK, ID: c.ID, Name: c.Name, IsPublic: c.IsPublic, Boost: string(c.Boost), OwnerID: c.OwnerID,
		Locale: c.Locale, Entry: c.Entry, ImageURL: c.ImageURL, CreatedAt: layout.FormatTime(c.CreatedAt), UpdatedAt: layout.FormatTime(c.UpdatedAt), Version: 1}
	return c, s.setMember(ctx, domain.Membership{CampaignID: c.ID, UserID: c.OwnerID, Role: domain.RoleAdmin}, &item)
}

// SetMember gives user a role in the campaign, replacing any role it had.
func (s *Store) SetMember(ctx context.Context, m domain.Membership) error {
	return s.setMember(ctx, m, nil)
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
		var ci campaignItem
		if err := unmarshalItem(it, &ci); err != nil {
			return ctx, nil, nil, err
		}
		c = ci.campaign()
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

// tokens are the token items, in their own package so that the authorizer links only them.
func (s *Store) tokens() tokens.Table { return tokens.Table{DB: s.Client(), Name: s.table.Name()} }

// PutToken stores a new token (its hash only).
func (s *Store) PutToken(ctx context.Context, t token.Token) error { return s.tokens().Put(ctx, t) }

// GetToken implements token.Store (see tokens.Table.Get).
func (s *Store) GetToken(ctx context.Context, hash string) (*token.Token, error) {
	return s.tokens().Get(ctx, hash)
}

// RevokeToken marks a stored token revoked; ErrNotFound when there is none.
func (s *Store) RevokeToken(ctx context.Context, hash string) error {
	return s.tokens().Revoke(ctx, hash)
}

// UserCampaigns lists the ids of the campaigns user belongs to.
func (s *Store) UserCampaigns(ctx context.Context, uid int64) ([]int64, error) {
	var rows []layout.MemberItem
	err := s.table.Get("pk", layout.UserPK(uid)).Range("sk", dynamo.BeginsWith, layout.CampaignPrefix).Consistent(true).All(ctx, &rows)
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.CampaignID
	}
	return ids, layout.Wrap(err)
}
