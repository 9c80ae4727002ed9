package store

// Webhooks: the campaign's subscriptions, their delivery queues and attempt logs, and the
// table's change stream they are fed from (decoded here: only the store knows the keys; the
// key builders are in internal/layout/keys.go).
//
//	item                       pk                               sk
//	webhook                    CAMPAIGN#c                       WEBHOOK#id
//	webhook count              CAMPAIGN#c                       COUNT#WEBHOOK ("n")
//	queue state                CAMPAIGN#c#WEBHOOK#id            STATE
//	queued event               CAMPAIGN#c#WEBHOOK#id            Q#<stream sequence>#<n>
//	delivery attempt (log)     CAMPAIGN#c#WEBHOOK#id            LOG#<time>#<event id>#<attempt>
//
// A queue state with something due carries gsi1pk WEBHOOKDUE and gsi1sk <due time>#c#id: the
// scheduled run finds due queues with one query of GSI1, whatever the size of the table. Log
// items expire through the table's `ttl`.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// LogRetention is how long delivery attempts stay listed.
const LogRetention = 14 * 24 * time.Hour

// Webhooks is the store of webhooks and their queues. It is a type of its own, made by
// NewWebhooks, so that its code is linked only into the binaries that use it (an exported method
// of Store is linked into every Lambda).
type Webhooks struct{ *Store }

// NewWebhooks wraps st.
func NewWebhooks(st *Store) *Webhooks { return &Webhooks{st} }

type webhookItem struct {
	PK             string   `dynamo:"pk"`
	SK             string   `dynamo:"sk"`
	ID             int64    `dynamo:"id"`
	CampaignID     int64    `dynamo:"campaign_id"`
	URL            string   `dynamo:"url"`
	Events         []string `dynamo:"events"`
	Tags           []int64  `dynamo:"tags"`
	Format         string   `dynamo:"format"`
	IsActive       bool     `dynamo:"is_active"`
	IncludePrivate bool     `dynamo:"include_private"`
	Secret         string   `dynamo:"secret"`
	DisabledReason string   `dynamo:"disabled_reason,omitempty"`
	CreatedAt      string   `dynamo:"created_at"`
	UpdatedAt      string   `dynamo:"updated_at"`
	CreatedBy      int64    `dynamo:"created_by"`
	UpdatedBy      int64    `dynamo:"updated_by"`
	Version        int64    `dynamo:"version"`
}

func toWebhookItem(w *hook.Webhook) webhookItem {
	ev, tags := w.Events, w.Tags
	if ev == nil {
		ev = []string{}
	}
	if tags == nil {
		tags = []int64{}
	}
	return webhookItem{PK: layout.CampaignPK(w.CampaignID), SK: layout.RecordSK(layout.WebhookPrefix, w.ID), ID: w.ID, CampaignID: w.CampaignID,
		URL: w.URL, Events: ev, Tags: tags, Format: w.Format, IsActive: w.IsActive, IncludePrivate: w.IncludePrivate,
		Secret: w.Secret, DisabledReason: w.DisabledReason, CreatedAt: layout.FormatTime(w.CreatedAt), UpdatedAt: layout.FormatTime(w.UpdatedAt),
		CreatedBy: w.CreatedBy, UpdatedBy: w.UpdatedBy, Version: w.Version}
}

func (it webhookItem) webhook() hook.Webhook {
	return hook.Webhook{Meta: domain.Meta{ID: it.ID, CampaignID: it.CampaignID, CreatedAt: layout.ParseTime(it.CreatedAt),
		UpdatedAt: layout.ParseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, Version: it.Version}, URL: it.URL, Events: it.Events, Tags: it.Tags, Format: it.Format,
		IsActive: it.IsActive, IncludePrivate: it.IncludePrivate, Secret: it.Secret, DisabledReason: it.DisabledReason}
}

// CreateWebhook stores a new webhook: its id from the campaign's sequence, and the campaign's
// webhook count checked against max in the same transaction.
func (s *Webhooks) CreateWebhook(ctx context.Context, w *hook.Webhook, max int) error {
	ids, err := s.nextIDs(ctx, layout.CampaignPK(w.CampaignID), "webhook")
	if err != nil {
		return err
	}
	now := s.now()
	w.ID, w.Version, w.CreatedAt, w.UpdatedAt, w.UpdatedBy = ids[0], 1, now, now, w.CreatedBy
	tx := s.db.WriteTx()
	tx.Put(s.table.Put(toWebhookItem(w)).If("attribute_not_exists('pk')"))
	tx.Update(s.table.Update("pk", layout.CampaignPK(w.CampaignID)).Range("sk", layout.WebhookCounter).Add("n", 1).
		If("attribute_not_exists('n') OR 'n' < ?", max))
	if err := layout.Wrap(tx.Run(ctx)); err != nil {
		if errors.Is(err, apperr.ErrConflict) {
			return hook.ErrLimit
		}
		return err
	}
	return nil
}

// GetWebhook reads one webhook, strongly consistent; ErrNotFound when there is none.
func (s *Webhooks) GetWebhook(ctx context.Context, cid, id int64) (*hook.Webhook, error) {
	return getRecord(ctx, s.Store, layout.CampaignPK(cid), layout.RecordSK(layout.WebhookPrefix, id), webhookItem.webhook)
}

// ListWebhooks reads the campaign's webhooks (at most limit) in id order: one query.
func (s *Webhooks) ListWebhooks(ctx context.Context, cid int64, limit int) ([]hook.Webhook, error) {
	var items []webhookItem
	err := s.table.Get("pk", layout.CampaignPK(cid)).Range("sk", dynamo.BeginsWith, layout.WebhookPrefix+"#").
		Consistent(true).Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	out := make([]hook.Webhook, len(items))
	for i, it := range items {
		out[i] = it.webhook()
	}
	return out, nil
}

// UpdateWebhook writes next over prev, on condition of the version read.
func (s *Webhooks) UpdateWebhook(ctx context.Context, prev, next *hook.Webhook) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.now()
	return layout.Wrap(s.table.Put(toWebhookItem(next)).If("'version' = ?", prev.Version).Run(ctx))
}

// DisableWebhook stops a webhook's deliveries (too many consecutive failures), whatever its
// version: the admin's next update reads the new one.
func (s *Webhooks) DisableWebhook(ctx context.Context, cid, id int64, reason string) error {
	err := s.table.Update("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(layout.WebhookPrefix, id)).
		Set("is_active", false).Set("disabled_reason", reason).Set("updated_at", layout.FormatTime(s.now())).Add("version", 1).
		If("attribute_exists('pk')").Run(ctx)
	if err = layout.Wrap(err); errors.Is(err, apperr.ErrConflict) {
		return nil // deleted meanwhile
	}
	return err
}

// DeleteWebhook deletes a webhook (on condition of the version read) with its count, then its
// queue and recent attempts (a queue left behind by a failure there is cleared by its next drain,
// which finds no webhook; attempts expire anyway).
func (s *Webhooks) DeleteWebhook(ctx context.Context, w *hook.Webhook) error {
	tx := s.db.WriteTx()
	tx.Delete(s.table.Delete("pk", layout.CampaignPK(w.CampaignID)).Range("sk", layout.RecordSK(layout.WebhookPrefix, w.ID)).If("'version' = ?", w.Version))
	tx.Update(s.table.Update("pk", layout.CampaignPK(w.CampaignID)).Range("sk", layout.WebhookCounter).Add("n", -1))
	if err := layout.Wrap(tx.Run(ctx)); err != nil {
		return err
	}
	return s.ClearQueue(ctx, w.CampaignID, w.ID, true)
}

// ClearQueue deletes a webhook's queue and its state, and with all its attempts too.
func (s *Webhooks) ClearQueue(ctx context.Context, cid, wid int64, all bool) error {
	pk := layout.WebhookPK(cid, wid)
	q := s.table.Get("pk", pk).Project("pk", "sk").Consistent(true)
	if !all { // the queued events only (and the state below), not the attempts
		q = q.Range("sk", dynamo.BeginsWith, layout.QueuePrefix)
	}
	iter := q.Iter()
	keys := []dynamo.Keyed{dynamo.Keys{pk, layout.QueueStateSK}}
	var it struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	for iter.Next(ctx, &it) {
		if it.SK != layout.QueueStateSK {
			keys = append(keys, dynamo.Keys{it.PK, it.SK})
		}
	}
	if err := iter.Err(); err != nil {
		return layout.Wrap(err)
	}
	return s.batchDelete(ctx, keys)
}

type queueStateItem struct {
	Queued     int    `dynamo:"queued"`
	Failures   int    `dynamo:"failures"`
	DueAt      string `dynamo:"due_at"`
	LeaseUntil string `dynamo:"lease_until"`
}

type queuedItem struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	EventID  string `dynamo:"event_id"`
	Event    string `dynamo:"event"`
	Payload  []byte `dynamo:"payload"`
	Attempts int    `dynamo:"attempts"`
	Created  string `dynamo:"created_at"`
}

// Enqueue adds an event to a webhook's queue and counts it (at most max queued) in one
// transaction; the queue becomes due now unless it already waits for a retry. An event already
// queued (a change the stream delivered twice) is left as it is.
func (s *Webhooks) Enqueue(ctx context.Context, cid, wid int64, q hook.Queued, max int) error {
	pk := layout.WebhookPK(cid, wid)
	now := s.now()
	tx := s.db.WriteTx()
	tx.Put(s.table.Put(queuedItem{PK: pk, SK: layout.QueuePrefix + q.Key, EventID: q.EventID, Event: q.Event, Payload: q.Payload,
		Created: layout.FormatTime(q.Created)}).If("attribute_not_exists('pk')"))
	tx.Update(s.table.Update("pk", pk).Range("sk", layout.QueueStateSK).Add("queued", 1).
		SetExpr("'due_at' = if_not_exists('due_at', ?)", layout.FormatTime(now)).
		SetExpr("'gsi1sk' = if_not_exists('gsi1sk', ?)", layout.DueSK(now, cid, wid)).
		Set("gsi1pk", layout.DueIndexPK).
		If("attribute_not_exists('queued') OR 'queued' < ?", max))
	err := layout.Wrap(tx.Run(ctx))
	if errors.Is(err, apperr.ErrConflict) {
		// Either the event is queued already or the queue is full: a read tells which.
		var it queuedItem
		if gerr := s.getItem(ctx, pk, layout.QueuePrefix+q.Key, &it); gerr == nil {
			return nil
		}
		return hook.ErrQueueFull
	}
	return err
}

// Queue reads the first limit events of a webhook's queue, in order, and its state.
func (s *Webhooks) Queue(ctx context.Context, cid, wid int64, limit int) ([]hook.Queued, hook.QueueState, error) {
	pk := layout.WebhookPK(cid, wid)
	var st hook.QueueState
	var sti queueStateItem
	switch err := s.getItem(ctx, pk, layout.QueueStateSK, &sti); {
	case errors.Is(err, apperr.ErrNotFound):
	case err != nil:
		return nil, st, err
	default:
		st = hook.QueueState{Queued: sti.Queued, Failures: sti.Failures, Leased: sti.LeaseUntil != ""}
		if sti.DueAt != "" {
			st.DueAt = layout.ParseTime(sti.DueAt)
		}
	}
	var items []queuedItem
	if err := s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.QueuePrefix).Consistent(true).Limit(limit).All(ctx, &items); err != nil {
		return nil, st, layout.Wrap(err)
	}
	out := make([]hook.Queued, len(items))
	for i, it := range items {
		out[i] = hook.Queued{Key: strings.TrimPrefix(it.SK, layout.QueuePrefix), EventID: it.EventID, Event: it.Event, Payload: it.Payload,
			Attempts: it.Attempts, Created: layout.ParseTime(it.Created)}
	}
	return out, st, nil
}

// Lease takes a webhook's queue for one drainer until `until`, so that its events go out one at a
// time and in order; false when another drainer holds it.
func (s *Webhooks) Lease(ctx context.Context, cid, wid int64, now, until time.Time) (bool, error) {
	err := s.table.Update("pk", layout.WebhookPK(cid, wid)).Range("sk", layout.QueueStateSK).Set("lease_until", layout.FormatTime(until)).
		If("attribute_not_exists('lease_until') OR 'lease_until' < ?", layout.FormatTime(now)).Run(ctx)
	switch err = layout.Wrap(err); err {
	case nil:
		return true, nil
	case apperr.ErrConflict:
		return false, nil
	}
	return false, err
}

// Dequeue removes a sent (or abandoned) event and sets the count of consecutive failures.
func (s *Webhooks) Dequeue(ctx context.Context, cid, wid int64, key string, failures int) error {
	pk := layout.WebhookPK(cid, wid)
	tx := s.db.WriteTx()
	tx.Delete(s.table.Delete("pk", pk).Range("sk", layout.QueuePrefix+key).If("attribute_exists('pk')"))
	tx.Update(s.table.Update("pk", pk).Range("sk", layout.QueueStateSK).Add("queued", -1).Set("failures", failures))
	return layout.Wrap(tx.Run(ctx))
}

// Retry records a failed attempt of the queue's first event: the queue waits until due.
func (s *Webhooks) Retry(ctx context.Context, cid, wid int64, key string, attempts, failures int, due time.Time) error {
	pk := layout.WebhookPK(cid, wid)
	tx := s.db.WriteTx()
	tx.Update(s.table.Update("pk", pk).Range("sk", layout.QueuePrefix+key).Set("attempts", attempts).If("attribute_exists('pk')"))
	tx.Update(s.table.Update("pk", pk).Range("sk", layout.QueueStateSK).Set("failures", failures).
		Set("due_at", layout.FormatTime(due)).Set("gsi1pk", layout.DueIndexPK).Set("gsi1sk", layout.DueSK(due, cid, wid)))
	return layout.Wrap(tx.Run(ctx))
}

// Release ends a drain. more: events remain that are due now (the drain ran out of time);
// else, when the queue is empty, it is no longer due. A queue that waits for a retry keeps
// its due time (keep).
func (s *Webhooks) Release(ctx context.Context, cid, wid int64, keep, more bool) error {
	pk := layout.WebhookPK(cid, wid)
	u := s.table.Update("pk", pk).Range("sk", layout.QueueStateSK).Remove("lease_until")
	if keep {
		return layout.Wrap(u.If("attribute_exists('pk')").Run(ctx))
	}
	if !more {
		err := layout.Wrap(u.Remove("due_at", "gsi1pk", "gsi1sk").If("'queued' <= ?", 0).Run(ctx))
		if !errors.Is(err, apperr.ErrConflict) {
			return err
		}
		// Events were queued meanwhile: due now.
	}
	now := s.now()
	return layout.Wrap(s.table.Update("pk", pk).Range("sk", layout.QueueStateSK).Remove("lease_until").Set("due_at", layout.FormatTime(now)).
		Set("gsi1pk", layout.DueIndexPK).Set("gsi1sk", layout.DueSK(now, cid, wid)).Run(ctx))
}

// DueQueues lists (at most limit) webhooks whose queue is due at now: one query of GSI1.
func (s *Webhooks) DueQueues(ctx context.Context, now time.Time, limit int) ([]hook.QueueRef, error) {
	var items []struct {
		SK string `dynamo:"gsi1sk"`
	}
	err := s.table.Get("gsi1pk", layout.DueIndexPK).Index(GSI1).Range("gsi1sk", dynamo.LessOrEqual, layout.FormatTime(now)+"#~").
		Project("gsi1sk").Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	out := make([]hook.QueueRef, 0, len(items))
	for _, it := range items {
		parts := strings.Split(it.SK, "#")
		if len(parts) != 3 {
			continue
		}
		cid, _ := strconv.ParseInt(parts[1], 10, 64)
		wid, _ := strconv.ParseInt(parts[2], 10, 64)
		out = append(out, hook.QueueRef{CampaignID: cid, WebhookID: wid})
	}
	return out, nil
}

type attemptItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	EventID    string `dynamo:"event_id"`
	Event      string `dynamo:"event"`
	At         string `dynamo:"at"`
	Status     int    `dynamo:"status"`
	DurationMS int64  `dynamo:"duration_ms"`
	Error      string `dynamo:"error,omitempty"`
	Attempt    int    `dynamo:"attempt"`
	TTL        int64  `dynamo:"ttl"`
}

// LogAttempt keeps a delivery attempt for the deliveries list, for LogRetention.
func (s *Webhooks) LogAttempt(ctx context.Context, a hook.Attempt) error {
	it := attemptItem{PK: layout.WebhookPK(a.CampaignID, a.WebhookID),
		SK:      layout.LogPrefix + layout.FormatTime(a.At) + "#" + a.EventID + "#" + strconv.Itoa(a.Attempt),
		EventID: a.EventID, Event: a.Event, At: layout.FormatTime(a.At), Status: a.Status, DurationMS: a.DurationMS, Error: a.Error,
		Attempt: a.Attempt, TTL: a.At.Add(LogRetention).Unix()}
	return layout.Wrap(s.table.Put(it).Run(ctx))
}

// Attempts reads a webhook's most recent delivery attempts (at most limit), newest first.
func (s *Webhooks) Attempts(ctx context.Context, cid, wid int64, limit int) ([]hook.Attempt, error) {
	var items []attemptItem
	err := s.table.Get("pk", layout.WebhookPK(cid, wid)).Range("sk", dynamo.BeginsWith, layout.LogPrefix).Order(dynamo.Descending).
		Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	out := make([]hook.Attempt, len(items))
	for i, it := range items {
		out[i] = hook.Attempt{WebhookID: wid, CampaignID: cid, EventID: it.EventID, Event: it.Event, At: layout.ParseTime(it.At),
			Status: it.Status, DurationMS: it.DurationMS, Error: it.Error, Attempt: it.Attempt}
	}
	return out, nil
}

// StreamRecord is one change of the table's stream: from a Lambda event or from the stream
// read locally (package webhooks/stream reads both, so that neither client is linked into
// the other Lambdas).
type StreamRecord struct {
	EventName string // INSERT, MODIFY, REMOVE
	Seq       string
	At        time.Time
	Old, New  map[string]types.AttributeValue
}

// streamImage is what a change of a record item tells the webhooks, whatever its kind.
type streamImage struct {
	PK         string  `dynamo:"pk"`
	SK         string  `dynamo:"sk"`
	ID         int64   `dynamo:"id"`
	CampaignID int64   `dynamo:"campaign_id"`
	EntityID   int64   `dynamo:"entity_id"`
	LocationID int64   `dynamo:"location_id"`
	MapID      int64   `dynamo:"map_id"`
	Name       *string `dynamo:"name"`
	Type       string  `dynamo:"type"`
	IsPrivate  bool    `dynamo:"is_private"`
	Visibility string  `dynamo:"visibility"`
	Tags       []int64 `dynamo:"tags"`
	// PrivateTags: the ids of Tags naming private tags (homes keep them): a webhook without
	// include_private neither shows nor matches them.
	PrivateTags []int64 `dynamo:"private_tags"`
	Date        string  `dynamo:"date"`
	Version     int64   `dynamo:"version"`
	CreatedBy   int64   `dynamo:"created_by"`
	UpdatedBy   int64   `dynamo:"updated_by"`
	UpdatedAt   string  `dynamo:"updated_at"`
}

// recordKind names the record whose home item (pk, sk) is, "" for any other item (copies,
// counters, links, entities, webhooks' own items...).
func recordKind(pk, sk string) string {
	sk = strings.TrimPrefix(sk, layout.SelfHome)
	kind, _, ok := strings.Cut(sk, "#")
	if !ok {
		return ""
	}
	parts := strings.Split(pk, "#")
	switch {
	case len(parts) == 2 && kind == layout.LocationPrefix:
		return "location"
	case len(parts) == 2 && kind == layout.CalendarPrefix:
		return "calendar"
	case len(parts) == 4 && parts[2] == layout.EntityPrefix && kind == layout.EventPrefix:
		return "entity_event"
	case len(parts) == 4 && parts[2] == layout.EntityPrefix && kind == layout.NotePrefix:
		return "entity_note"
	case len(parts) == 4 && parts[2] == layout.LocationPrefix && kind == layout.MapPointPrefix:
		return "map_point"
	case len(parts) == 2 && kind == layout.MapPrefix:
		return "map"
	case len(parts) == 4 && parts[2] == layout.MapPrefix && kind == layout.MarkerPrefix:
		return "map_marker"
	}
	return ""
}

// Changes turns stream records into the record changes webhooks announce, in order. Items
// that are not a record's home are left out, and so is a rewrite that changed no version (a
// migration). A note or event that moved between its two home keys (a visibility change to or
// from `self`) is one update, not a delete and a create: the removal at the old key is dropped
// when the record lives on at the other one (one read).
func (s *Webhooks) Changes(ctx context.Context, recs []StreamRecord) ([]hook.Change, error) {
	var out []hook.Change
	for _, r := range recs {
		if kind, cid, mid, ok := packOf(r); ok {
			out = append(out, packChanges(r, kind, cid, mid)...)
			continue
		}
		img := r.New
		if r.EventName == "REMOVE" {
			img = r.Old
		}
		var cur, old streamImage
		if img == nil || dynamo.UnmarshalItem(img, &cur) != nil {
			continue
		}
		kind := recordKind(cur.PK, cur.SK)
		if kind == "" || cur.ID == 0 {
			continue
		}
		if r.Old != nil {
			_ = dynamo.UnmarshalItem(r.Old, &old)
		}
		if kind == "map" {
			cur.MapID, cur.LocationID = 0, 0 // a map's parent and location are not its scope
		}
		c := hook.Change{Seq: fmt.Sprintf("%040s", r.Seq), StreamSeq: r.Seq, Kind: kind, CampaignID: cur.CampaignID, ID: cur.ID,
			EntityID: cur.EntityID, LocationID: cur.LocationID, MapID: cur.MapID, Type: cur.Type, IsPrivate: cur.IsPrivate,
			Visibility: cur.Visibility, CreatedBy: cur.CreatedBy, UpdatedBy: cur.UpdatedBy, Tags: cur.Tags, PrivateTags: cur.PrivateTags, At: r.At}
		if cur.Name != nil {
			c.Name = *cur.Name
		}
		if t, err := time.Parse(layout.Timestamp, cur.UpdatedAt); err == nil && r.EventName != "REMOVE" {
			c.At = t
		}
		switch r.EventName {
		case "INSERT":
			c.Action = "created"
			if cur.Version > 1 { // a note or event moved to its other home key
				c.Action = "updated"
			}
		case "MODIFY":
			if cur.Version == old.Version {
				continue
			}
			c.Action = "updated"
			if kind == "calendar" {
				c.Date, c.PreviousDate = cur.Date, old.Date
			}
		case "REMOVE":
			c.Action = "deleted"
			if kind == "entity_event" || kind == "entity_note" || kind == "map_marker" {
				other := strings.TrimPrefix(cur.SK, layout.SelfHome)
				if other == cur.SK {
					other = layout.SelfHome + cur.SK
				}
				var probe struct {
					ID int64 `dynamo:"id"`
				}
				switch err := s.getItem(ctx, cur.PK, other, &probe); err {
				case nil:
					continue
				case apperr.ErrNotFound:
				default:
					return nil, err
				}
			}
		default:
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// packOf tells whether a stream record is a map's layers or groups pack, and whose.
func packOf(r StreamRecord) (kind string, cid, mid int64, ok bool) {
	img := r.New
	if img == nil {
		img = r.Old
	}
	var k struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	if img == nil || dynamo.UnmarshalItem(img, &k) != nil {
		return "", 0, 0, false
	}
	switch k.SK {
	case layout.LayersSK:
		kind = "map_layer"
	case layout.GroupsSK:
		kind = "map_group"
	default:
		return "", 0, 0, false
	}
	parts := strings.Split(k.PK, "#")
	if len(parts) != 4 {
		return "", 0, 0, false
	}
	cid, err1 := strconv.ParseInt(parts[1], 10, 64)
	mid, err2 := strconv.ParseInt(parts[3], 10, 64)
	return kind, cid, mid, err1 == nil && err2 == nil && k.PK == layout.MapPK(cid, mid)
}

// packEntries reads a pack image's entries by id (nil for no image or an unreadable one).
func packEntries(img map[string]types.AttributeValue) map[int64]domain.PackEntry {
	var it layout.PackItem
	if img == nil || dynamo.UnmarshalItem(img, &it) != nil {
		return nil
	}
	var entries []domain.PackEntry
	if json.Unmarshal([]byte(it.Items), &entries) != nil {
		return nil
	}
	out := make(map[int64]domain.PackEntry, len(entries))
	for _, e := range entries {
		out[e.ID] = e
	}
	return out
}

// packChanges turns one write of a pack (a whole map's layers or groups) into the changes of
// its entries, by comparing the old and new images: an id only in the new one was created,
// only in the old one deleted (every entry when the map's purge removes the pack), in both
// with another updated_at updated. Each change's Seq is the record's followed by the entry's
// id, so that one record's events have their own queue keys and event ids, in id order.
func packChanges(r StreamRecord, kind string, cid, mid int64) []hook.Change {
	old, cur := packEntries(r.Old), packEntries(r.New)
	ids := make([]int64, 0, len(old)+len(cur))
	for id := range old {
		ids = append(ids, id)
	}
	for id := range cur {
		if _, ok := old[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []hook.Change
	for _, id := range ids {
		o, wasThere := old[id]
		n, isThere := cur[id]
		e, action, at := n, "updated", n.UpdatedAt
		switch {
		case !wasThere:
			action = "created"
		case !isThere:
			e, action, at = o, "deleted", r.At
		case o.UpdatedAt.Equal(n.UpdatedAt):
			continue
		}
		out = append(out, hook.Change{Seq: fmt.Sprintf("%040s.%020d", r.Seq, id), StreamSeq: r.Seq, Kind: kind, CampaignID: cid,
			Action: action, ID: id, MapID: mid, Name: e.Name, Visibility: string(e.Visibility), CreatedBy: e.CreatedBy, UpdatedBy: e.UpdatedBy, At: at})
	}
	return out
}
