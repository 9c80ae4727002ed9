package webhooks

// The family's storage: the campaign's subscriptions, their delivery queues and attempt logs,
// on the kernel's table (package store spells the keys; the family names the items of a
// webhook's own partition).
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
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
	"github.com/lorekeep/lorekeep/shared/webhooks/webhookkind"
)

// Kind is the webhooks' kind: the KIND of their keys and the name of their id sequence.
const Kind = webhookkind.Kind

const (
	sequence    = "webhook"
	stateSK     = "STATE"
	queuePrefix = "Q#"
	logPrefix   = "LOG#"
	dueIndexPK  = "WEBHOOKDUE"
)

func queuePK(cid, wid int64) string { return store.PartitionOf(cid, Kind, wid).PK() }

// LogRetention is how long delivery attempts stay listed.
const LogRetention = 14 * 24 * time.Hour

// Hooks is the family's storage: its own items over the kernel, and the reads of the
// records an event names (the kernel's entities, the locations and maps families' records).
type Hooks struct {
	*store.Store
	locations *locstore.Locations
	maps      *mapstore.Maps
}

// NewStorage wraps the kernel.
func NewStorage(st *store.Store) *Hooks {
	return &Hooks{Store: st, locations: locstore.New(st), maps: mapstore.New(st)}
}

// GetMap reads the map an event names (mapstore.Maps.GetMap).
func (s *Hooks) GetMap(ctx context.Context, cid, id int64) (*domain.Map, error) {
	return s.maps.GetMap(ctx, cid, id)
}

// GetLocation reads the location an event names (locstore.Locations.GetLocation).
func (s *Hooks) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	return s.locations.GetLocation(ctx, cid, id)
}

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
	home := store.RecordKey(w.CampaignID, Kind, w.ID)
	return webhookItem{PK: home.PK, SK: home.SK, ID: w.ID, CampaignID: w.CampaignID,
		URL: w.URL, Events: ev, Tags: tags, Format: w.Format, IsActive: w.IsActive, IncludePrivate: w.IncludePrivate,
		Secret: w.Secret, DisabledReason: w.DisabledReason, CreatedAt: store.FormatTime(w.CreatedAt), UpdatedAt: store.FormatTime(w.UpdatedAt),
		CreatedBy: w.CreatedBy, UpdatedBy: w.UpdatedBy, Version: w.Version}
}

func (it webhookItem) webhook() hook.Webhook {
	return hook.Webhook{Meta: domain.Meta{ID: it.ID, CampaignID: it.CampaignID, CreatedAt: store.ParseTime(it.CreatedAt),
		UpdatedAt: store.ParseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, Version: it.Version}, URL: it.URL, Events: it.Events, Tags: it.Tags, Format: it.Format,
		IsActive: it.IsActive, IncludePrivate: it.IncludePrivate, Secret: it.Secret, DisabledReason: it.DisabledReason}
}

// CreateWebhook stores a new webhook: its id from the campaign's sequence, and the campaign's
// webhook count checked against max in the same transaction.
func (s *Hooks) CreateWebhook(ctx context.Context, w *hook.Webhook, max int) error {
	id, err := s.NextIDs(ctx, w.CampaignID, sequence, 1)
	if err != nil {
		return err
	}
	now := s.Now()
	w.ID, w.Version, w.CreatedAt, w.UpdatedAt, w.UpdatedBy = id, 1, now, now, w.CreatedBy
	count := store.CounterKey(w.CampaignID, Kind)
	tx := s.WriteTx()
	tx.Put(s.Table().Put(toWebhookItem(w)).If("attribute_not_exists('pk')"))
	tx.Update(s.Table().Update("pk", count.PK).Range("sk", count.SK).Add("n", 1).
		If("attribute_not_exists('n') OR 'n' < ?", max))
	if err := store.Wrap(tx.Run(ctx)); err != nil {
		if errors.Is(err, apperr.ErrConflict) {
			return hook.ErrLimit
		}
		return err
	}
	return nil
}

// GetWebhook reads one webhook, strongly consistent; ErrNotFound when there is none.
func (s *Hooks) GetWebhook(ctx context.Context, cid, id int64) (*hook.Webhook, error) {
	var it webhookItem
	if err := s.GetItem(ctx, store.RecordKey(cid, Kind, id), &it); err != nil {
		return nil, err
	}
	w := it.webhook()
	return &w, nil
}

// ListWebhooks reads the campaign's webhooks (at most limit) in id order: one query.
func (s *Hooks) ListWebhooks(ctx context.Context, cid int64, limit int) ([]hook.Webhook, error) {
	var items []webhookItem
	err := s.Table().Get("pk", store.RecordKey(cid, Kind, 0).PK).Range("sk", dynamo.BeginsWith, Kind+"#").
		Consistent(true).Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, store.Wrap(err)
	}
	out := make([]hook.Webhook, len(items))
	for i, it := range items {
		out[i] = it.webhook()
	}
	return out, nil
}

// UpdateWebhook writes next over prev, on condition of the version read.
func (s *Hooks) UpdateWebhook(ctx context.Context, prev, next *hook.Webhook) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.Now()
	return store.Wrap(s.Table().Put(toWebhookItem(next)).If("'version' = ?", prev.Version).Run(ctx))
}

// DisableWebhook stops a webhook's deliveries (too many consecutive failures), whatever its
// version: the admin's next update reads the new one.
func (s *Hooks) DisableWebhook(ctx context.Context, cid, id int64, reason string) error {
	home := store.RecordKey(cid, Kind, id)
	err := s.Table().Update("pk", home.PK).Range("sk", home.SK).
		Set("is_active", false).Set("disabled_reason", reason).Set("updated_at", store.FormatTime(s.Now())).Add("version", 1).
		If("attribute_exists('pk')").Run(ctx)
	if err = store.Wrap(err); errors.Is(err, apperr.ErrConflict) {
		return nil // deleted meanwhile
	}
	return err
}

// DeleteWebhook deletes a webhook (on condition of the version read) with its count, then its
// queue and recent attempts (a queue left behind by a failure there is cleared by its next drain,
// which finds no webhook; attempts expire anyway).
func (s *Hooks) DeleteWebhook(ctx context.Context, w *hook.Webhook) error {
	tx := s.WriteTx()
	home, count := store.RecordKey(w.CampaignID, Kind, w.ID), store.CounterKey(w.CampaignID, Kind)
	tx.Delete(s.Table().Delete("pk", home.PK).Range("sk", home.SK).If("'version' = ?", w.Version))
	tx.Update(s.Table().Update("pk", count.PK).Range("sk", count.SK).Add("n", -1))
	if err := store.Wrap(tx.Run(ctx)); err != nil {
		return err
	}
	return s.ClearQueue(ctx, w.CampaignID, w.ID, true)
}

// ClearQueue deletes a webhook's queue and its state, and with all its attempts too.
func (s *Hooks) ClearQueue(ctx context.Context, cid, wid int64, all bool) error {
	pk := queuePK(cid, wid)
	q := s.Table().Get("pk", pk).Project("pk", "sk").Consistent(true)
	if !all { // the queued events only (and the state below), not the attempts
		q = q.Range("sk", dynamo.BeginsWith, queuePrefix)
	}
	iter := q.Iter()
	keys := []store.Key{{PK: pk, SK: stateSK}}
	var it struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	for iter.Next(ctx, &it) {
		if it.SK != stateSK {
			keys = append(keys, store.Key{PK: it.PK, SK: it.SK})
		}
	}
	if err := iter.Err(); err != nil {
		return store.Wrap(err)
	}
	return s.DeleteItems(ctx, keys)
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
func (s *Hooks) Enqueue(ctx context.Context, cid, wid int64, q hook.Queued, max int) error {
	pk := queuePK(cid, wid)
	now := s.Now()
	tx := s.WriteTx()
	tx.Put(s.Table().Put(queuedItem{PK: pk, SK: queuePrefix + q.Key, EventID: q.EventID, Event: q.Event, Payload: q.Payload,
		Created: store.FormatTime(q.Created)}).If("attribute_not_exists('pk')"))
	tx.Update(s.Table().Update("pk", pk).Range("sk", stateSK).Add("queued", 1).
		SetExpr("'due_at' = if_not_exists('due_at', ?)", store.FormatTime(now)).
		SetExpr("'gsi1sk' = if_not_exists('gsi1sk', ?)", store.TimeIndexSK(now, cid, wid)).
		Set("gsi1pk", dueIndexPK).
		If("attribute_not_exists('queued') OR 'queued' < ?", max))
	err := store.Wrap(tx.Run(ctx))
	if errors.Is(err, apperr.ErrConflict) {
		// Either the event is queued already or the queue is full: a read tells which.
		var it queuedItem
		if gerr := s.GetItem(ctx, store.Key{PK: pk, SK: queuePrefix + q.Key}, &it); gerr == nil {
			return nil
		}
		return hook.ErrQueueFull
	}
	return err
}

// Queue reads the first limit events of a webhook's queue, in order, and its state.
func (s *Hooks) Queue(ctx context.Context, cid, wid int64, limit int) ([]hook.Queued, hook.QueueState, error) {
	pk := queuePK(cid, wid)
	var st hook.QueueState
	var sti queueStateItem
	switch err := s.GetItem(ctx, store.Key{PK: pk, SK: stateSK}, &sti); {
	case errors.Is(err, apperr.ErrNotFound):
	case err != nil:
		return nil, st, err
	default:
		st = hook.QueueState{Queued: sti.Queued, Failures: sti.Failures, Leased: sti.LeaseUntil != ""}
		if sti.DueAt != "" {
			st.DueAt = store.ParseTime(sti.DueAt)
		}
	}
	var items []queuedItem
	if err := s.Table().Get("pk", pk).Range("sk", dynamo.BeginsWith, queuePrefix).Consistent(true).Limit(limit).All(ctx, &items); err != nil {
		return nil, st, store.Wrap(err)
	}
	out := make([]hook.Queued, len(items))
	for i, it := range items {
		out[i] = hook.Queued{Key: strings.TrimPrefix(it.SK, queuePrefix), EventID: it.EventID, Event: it.Event, Payload: it.Payload,
			Attempts: it.Attempts, Created: store.ParseTime(it.Created)}
	}
	return out, st, nil
}

// Lease takes a webhook's queue for one drainer until `until`, so that its events go out one at a
// time and in order; false when another drainer holds it.
func (s *Hooks) Lease(ctx context.Context, cid, wid int64, now, until time.Time) (bool, error) {
	err := s.Table().Update("pk", queuePK(cid, wid)).Range("sk", stateSK).Set("lease_until", store.FormatTime(until)).
		If("attribute_not_exists('lease_until') OR 'lease_until' < ?", store.FormatTime(now)).Run(ctx)
	switch err = store.Wrap(err); err {
	case nil:
		return true, nil
	case apperr.ErrConflict:
		return false, nil
	}
	return false, err
}

// Dequeue removes a sent (or abandoned) event and sets the count of consecutive failures.
func (s *Hooks) Dequeue(ctx context.Context, cid, wid int64, key string, failures int) error {
	pk := queuePK(cid, wid)
	tx := s.WriteTx()
	tx.Delete(s.Table().Delete("pk", pk).Range("sk", queuePrefix+key).If("attribute_exists('pk')"))
	tx.Update(s.Table().Update("pk", pk).Range("sk", stateSK).Add("queued", -1).Set("failures", failures))
	return store.Wrap(tx.Run(ctx))
}

// Retry records a failed attempt of the queue's first event: the queue waits until due.
func (s *Hooks) Retry(ctx context.Context, cid, wid int64, key string, attempts, failures int, due time.Time) error {
	pk := queuePK(cid, wid)
	tx := s.WriteTx()
	tx.Update(s.Table().Update("pk", pk).Range("sk", queuePrefix+key).Set("attempts", attempts).If("attribute_exists('pk')"))
	tx.Update(s.Table().Update("pk", pk).Range("sk", stateSK).Set("failures", failures).
		Set("due_at", store.FormatTime(due)).Set("gsi1pk", dueIndexPK).Set("gsi1sk", store.TimeIndexSK(due, cid, wid)))
	return store.Wrap(tx.Run(ctx))
}

// Release ends a drain. more: events remain that are due now (the drain ran out of time);
// else, when the queue is empty, it is no longer due. A queue that waits for a retry keeps
// its due time (keep).
func (s *Hooks) Release(ctx context.Context, cid, wid int64, keep, more bool) error {
	pk := queuePK(cid, wid)
	u := s.Table().Update("pk", pk).Range("sk", stateSK).Remove("lease_until")
	if keep {
		return store.Wrap(u.If("attribute_exists('pk')").Run(ctx))
	}
	if !more {
		err := store.Wrap(u.Remove("due_at", "gsi1pk", "gsi1sk").If("'queued' <= ?", 0).Run(ctx))
		if !errors.Is(err, apperr.ErrConflict) {
			return err
		}
		// Events were queued meanwhile: due now.
	}
	now := s.Now()
	return store.Wrap(s.Table().Update("pk", pk).Range("sk", stateSK).Remove("lease_until").Set("due_at", store.FormatTime(now)).
		Set("gsi1pk", dueIndexPK).Set("gsi1sk", store.TimeIndexSK(now, cid, wid)).Run(ctx))
}

// DueQueues lists (at most limit) webhooks whose queue is due at now: one query of GSI1.
func (s *Hooks) DueQueues(ctx context.Context, now time.Time, limit int) ([]hook.QueueRef, error) {
	var items []struct {
		SK string `dynamo:"gsi1sk"`
	}
	err := s.Table().Get("gsi1pk", dueIndexPK).Index(store.GSI1).Range("gsi1sk", dynamo.LessOrEqual, store.TimeIndexBound(now)).
		Project("gsi1sk").Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, store.Wrap(err)
	}
	out := make([]hook.QueueRef, 0, len(items))
	for _, it := range items {
		if cid, wid, ok := store.ParseTimeIndexSK(it.SK); ok {
			out = append(out, hook.QueueRef{CampaignID: cid, WebhookID: wid})
		}
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
func (s *Hooks) LogAttempt(ctx context.Context, a hook.Attempt) error {
	it := attemptItem{PK: queuePK(a.CampaignID, a.WebhookID),
		SK:      logPrefix + store.FormatTime(a.At) + "#" + a.EventID + "#" + strconv.Itoa(a.Attempt),
		EventID: a.EventID, Event: a.Event, At: store.FormatTime(a.At), Status: a.Status, DurationMS: a.DurationMS, Error: a.Error,
		Attempt: a.Attempt, TTL: a.At.Add(LogRetention).Unix()}
	return store.Wrap(s.Table().Put(it).Run(ctx))
}

// Attempts reads a webhook's most recent delivery attempts (at most limit), newest first.
func (s *Hooks) Attempts(ctx context.Context, cid, wid int64, limit int) ([]hook.Attempt, error) {
	var items []attemptItem
	err := s.Table().Get("pk", queuePK(cid, wid)).Range("sk", dynamo.BeginsWith, logPrefix).Order(dynamo.Descending).
		Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, store.Wrap(err)
	}
	out := make([]hook.Attempt, len(items))
	for i, it := range items {
		out[i] = hook.Attempt{WebhookID: wid, CampaignID: cid, EventID: it.EventID, Event: it.Event, At: store.ParseTime(it.At),
			Status: it.Status, DurationMS: it.DurationMS, Error: it.Error, Attempt: it.Attempt}
	}
	return out, nil
}
