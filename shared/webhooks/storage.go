package webhooks

// The family's storage: the campaign's subscriptions, their delivery queues and attempt logs,
// on the kernel's table (package store spells the keys; the family names the items of a
// webhook's own partition).
//
//	item                       pk                               sk
//	webhook                    CAMPAIGN#c                       WEBHOOK#id
//	webhook count              CAMPAIGN#c                       COUNT#WEBHOOK ("n")
//	delivery state             CAMPAIGN#c#WEBHOOK#id            STATE
//	delivery attempt (log)     CAMPAIGN#c#WEBHOOK#id            LOG#<time>#<event id>#<attempt>
//
// The events themselves wait in the delivery queue (queue.go), not in the table. The state
// counts consecutive failures and the attempts of the event being retried. Log items expire
// through the table's `ttl`.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
	"github.com/lorekeep/lorekeep/shared/webhooks/webhookkind"
)

// Kind is the webhooks' kind: the KIND of their keys and the name of their id sequence.
const Kind = webhookkind.Kind

const (
	sequence  = "webhook"
	stateSK   = "STATE"
	logPrefix = "LOG#"
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
	calendars *calstore.Calendars
}

// NewStorage wraps the kernel.
func NewStorage(st *store.Store) *Hooks {
	return &Hooks{Store: st, locations: locstore.New(st), maps: mapstore.New(st), calendars: calstore.New(st)}
}

// GetCalendar reads the calendar an event names (calstore.Calendars.GetCalendar).
func (s *Hooks) GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error) {
	return s.calendars.GetCalendar(ctx, cid, id)
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
// delivery state and recent attempts (attempts left behind by a failure there expire; events
// still queued for it are dropped when their turn comes, as it is gone).
func (s *Hooks) DeleteWebhook(ctx context.Context, w *hook.Webhook) error {
	tx := s.WriteTx()
	home, count := store.RecordKey(w.CampaignID, Kind, w.ID), store.CounterKey(w.CampaignID, Kind)
	tx.Delete(s.Table().Delete("pk", home.PK).Range("sk", home.SK).If("'version' = ?", w.Version))
	tx.Update(s.Table().Update("pk", count.PK).Range("sk", count.SK).Add("n", -1))
	if err := store.Wrap(tx.Run(ctx)); err != nil {
		return err
	}
	return s.clearPartition(ctx, w.CampaignID, w.ID)
}

// clearPartition deletes every item of a webhook's own partition: its state and attempts (and
// the queue items of tables written before the delivery queue).
func (s *Hooks) clearPartition(ctx context.Context, cid, wid int64) error {
	pk := queuePK(cid, wid)
	iter := s.Table().Get("pk", pk).Project("pk", "sk").Consistent(true).Iter()
	var keys []store.Key
	var it struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	for iter.Next(ctx, &it) {
		keys = append(keys, store.Key{PK: it.PK, SK: it.SK})
	}
	if err := iter.Err(); err != nil {
		return store.Wrap(err)
	}
	return s.DeleteItems(ctx, keys)
}

type stateItem struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	Failures int    `dynamo:"failures"`
	Head     string `dynamo:"head,omitempty"`
	Attempts int    `dynamo:"attempts"`
}

// Delivery reads a webhook and its delivery state in one BatchGetItem, strongly consistent;
// ErrNotFound when the webhook is gone.
func (s *Hooks) Delivery(ctx context.Context, cid, wid int64) (*hook.Webhook, hook.QueueState, error) {
	home, state := store.RecordKey(cid, Kind, wid), store.Key{PK: queuePK(cid, wid), SK: stateSK}
	items, err := s.GetItems(ctx, home, state)
	if err != nil {
		return nil, hook.QueueState{}, err
	}
	raw, ok := items[home]
	if !ok {
		return nil, hook.QueueState{}, apperr.ErrNotFound
	}
	var wi webhookItem
	if err := dynamo.UnmarshalItem(raw, &wi); err != nil {
		return nil, hook.QueueState{}, err
	}
	var si stateItem
	if raw, ok := items[state]; ok {
		if err := dynamo.UnmarshalItem(raw, &si); err != nil {
			return nil, hook.QueueState{}, err
		}
	}
	w := wi.webhook()
	return &w, hook.QueueState{Failures: si.Failures, Head: si.Head, Attempts: si.Attempts}, nil
}

// SaveState writes a webhook's delivery state. One writer at a time: the queue hands a
// webhook's events to one delivery at a time.
func (s *Hooks) SaveState(ctx context.Context, cid, wid int64, st hook.QueueState) error {
	return store.Wrap(s.Table().Put(stateItem{PK: queuePK(cid, wid), SK: stateSK, Failures: st.Failures, Head: st.Head, Attempts: st.Attempts}).Run(ctx))
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
