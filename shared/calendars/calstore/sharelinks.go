package calstore

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/sharekind"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
)

// ShareLink is a calendar's share link as stored: who may look (Audience), until when, and the
// SHA-256 of its token (the token itself, signed with the stack's key, is never stored, so a
// read of the table cannot open a link).
type ShareLink struct {
	ID, CampaignID, CalendarID int64
	Audience                   string
	ExpiresAt                  *time.Time
	TokenHash                  []byte
	CreatedAt                  time.Time
	CreatedBy                  int64
}

// shareLinkItem: CAMPAIGN#c SHARELINK#id, counted in COUNT#SHARELINK ("n") against
// sharekind.MaxPerCampaign.
type shareLinkItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	CampaignID int64  `dynamo:"campaign_id"`
	CalendarID int64  `dynamo:"calendar_id"`
	Audience   string `dynamo:"audience"`
	ExpiresAt  string `dynamo:"expires_at,omitempty"`
	TokenHash  []byte `dynamo:"token_hash"`
	CreatedAt  string `dynamo:"created_at"`
	CreatedBy  int64  `dynamo:"created_by"`
}

func (it shareLinkItem) link() ShareLink {
	l := ShareLink{ID: it.ID, CampaignID: it.CampaignID, CalendarID: it.CalendarID, Audience: it.Audience,
		TokenHash: it.TokenHash, CreatedAt: store.ParseTime(it.CreatedAt), CreatedBy: it.CreatedBy}
	if it.ExpiresAt != "" {
		t := store.ParseTime(it.ExpiresAt)
		l.ExpiresAt = &t
	}
	return l
}

// ErrShareLinkLimit: the campaign has sharekind.MaxPerCampaign links.
var ErrShareLinkLimit = apperr.Invalid("audience", "A campaign may have at most 100 share links: revoke one first.")

// NewShareLinkID takes the next id of the campaign's share links (the token signs it, so it
// is known before the link is stored).
func (s *Calendars) NewShareLinkID(ctx context.Context, cid int64) (int64, error) {
	return s.NextIDs(ctx, cid, "sharelink", 1)
}

// CreateShareLink stores l (its ID from NewShareLinkID) in one transaction with its checks:
// the calendar still exists and the campaign's count stays within its limit.
func (s *Calendars) CreateShareLink(ctx context.Context, l *ShareLink) error {
	l.CreatedAt = s.Now()
	home, count := store.RecordKey(l.CampaignID, sharekind.Kind, l.ID), store.CounterKey(l.CampaignID, sharekind.Kind)
	cal := store.RecordKey(l.CampaignID, store.CalendarKind.Prefix, l.CalendarID)
	it := shareLinkItem{PK: home.PK, SK: home.SK, ID: l.ID, CampaignID: l.CampaignID, CalendarID: l.CalendarID,
		Audience: l.Audience, TokenHash: l.TokenHash, CreatedAt: store.FormatTime(l.CreatedAt), CreatedBy: l.CreatedBy}
	if l.ExpiresAt != nil {
		it.ExpiresAt = store.FormatTime(*l.ExpiresAt)
	}
	tx := s.WriteTx()
	tx.Put(s.Table().Put(it).If("attribute_not_exists('pk')"))
	tx.Update(s.Table().Update("pk", count.PK).Range("sk", count.SK).Add("n", 1).
		If("attribute_not_exists('n') OR 'n' < ?", sharekind.MaxPerCampaign))
	tx.Check(s.Table().Check("pk", cal.PK).Range("sk", cal.SK).IfExists())
	err := store.Wrap(tx.Run(ctx))
	if !errors.Is(err, apperr.ErrConflict) {
		return err
	}
	// Which check failed: the calendar (deleted meanwhile) or the limit.
	if _, gerr := s.GetCalendar(ctx, l.CampaignID, l.CalendarID); gerr != nil {
		return gerr
	}
	return ErrShareLinkLimit
}

// GetShareLink reads one share link, strongly consistent; ErrNotFound when there is none.
func (s *Calendars) GetShareLink(ctx context.Context, cid, id int64) (*ShareLink, error) {
	var it shareLinkItem
	if err := s.GetItem(ctx, store.RecordKey(cid, sharekind.Kind, id), &it); err != nil {
		return nil, err
	}
	l := it.link()
	return &l, nil
}

// ShareLinks reads calendar calID's share links in id order: one Query of the campaign's (at
// most sharekind.MaxPerCampaign).
func (s *Calendars) ShareLinks(ctx context.Context, cid, calID int64) ([]ShareLink, error) {
	var items []shareLinkItem
	err := s.Table().Get("pk", store.RecordKey(cid, sharekind.Kind, 0).PK).Range("sk", dynamo.BeginsWith, sharekind.Kind+"#").
		Filter("'calendar_id' = ?", calID).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, store.Wrap(err)
	}
	out := make([]ShareLink, len(items))
	for i, it := range items {
		out[i] = it.link()
	}
	return out, nil
}

// DeleteShareLink revokes a link: its item and its count, in one transaction; ErrNotFound
// when it is gone already.
func (s *Calendars) DeleteShareLink(ctx context.Context, l *ShareLink) error {
	home, count := store.RecordKey(l.CampaignID, sharekind.Kind, l.ID), store.CounterKey(l.CampaignID, sharekind.Kind)
	tx := s.WriteTx()
	tx.Delete(s.Table().Delete("pk", home.PK).Range("sk", home.SK).If("attribute_exists('pk')"))
	tx.Update(s.Table().Update("pk", count.PK).Range("sk", count.SK).Add("n", -1))
	return store.ConflictIsGone(store.Wrap(tx.Run(ctx)))
}

// ShareLinkWithCalendar reads share link id and calendar calID (the one its token names) in
// one BatchGetItem; ErrNotFound unless both exist.
func (s *Calendars) ShareLinkWithCalendar(ctx context.Context, cid, calID, id int64) (*ShareLink, *timeline.Calendar, error) {
	lk, ck := store.RecordKey(cid, sharekind.Kind, id), store.RecordKey(cid, store.CalendarKind.Prefix, calID)
	items, err := s.GetItems(ctx, lk, ck)
	if err != nil {
		return nil, nil, err
	}
	rawLink, ok1 := items[lk]
	rawCal, ok2 := items[ck]
	if !ok1 || !ok2 {
		return nil, nil, apperr.ErrNotFound
	}
	var li shareLinkItem
	var ci calendarItem
	if err := store.UnmarshalItem(rawLink, &li); err != nil {
		return nil, nil, err
	}
	if err := store.UnmarshalItem(rawCal, &ci); err != nil {
		return nil, nil, err
	}
	l, c := li.link(), ci.calendar()
	return &l, &c, nil
}
