package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// Settings of delivery. The zero value is production's: https only, public addresses only.
type Settings struct {
	// AllowHTTP accepts http:// URLs (local use: WEBHOOKS_ALLOW_HTTP=1).
	AllowHTTP bool
	// AllowLoopback lets deliveries reach 127.0.0.0/8 and ::1 (local use and tests:
	// WEBHOOKS_ALLOW_LOOPBACK=1). Private, link-local and metadata addresses stay forbidden.
	AllowLoopback bool
	// MaxAttempts of one event before it is abandoned (default 10: with BaseBackoff 1 min the
	// retries span about 8.5 hours).
	MaxAttempts int
	// BaseBackoff is the wait after the first failed attempt; it doubles after each failure.
	BaseBackoff time.Duration
	// DisableAfter consecutive failed attempts (any events) the webhook is switched off
	// (default 50).
	DisableAfter int
	// QueueLimit is the most events a webhook's queue holds (default 1000); beyond, new
	// events for it are dropped (and logged) until it drains.
	QueueLimit int
	// DrainBudget bounds one drain of a queue (default 20 s); what is left is due at once for
	// the next run.
	DrainBudget time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// SettingsFromEnv reads WEBHOOKS_ALLOW_HTTP and WEBHOOKS_ALLOW_LOOPBACK ("1" or "true").
func SettingsFromEnv(getenv func(string) string) Settings {
	on := func(k string) bool { v := getenv(k); return v == "1" || v == "true" }
	return Settings{AllowHTTP: on("WEBHOOKS_ALLOW_HTTP"), AllowLoopback: on("WEBHOOKS_ALLOW_LOOPBACK")}
}

func (s Settings) withDefaults() Settings {
	if s.MaxAttempts <= 0 {
		s.MaxAttempts = 10
	}
	if s.BaseBackoff <= 0 {
		s.BaseBackoff = time.Minute
	}
	if s.DisableAfter <= 0 {
		s.DisableAfter = 50
	}
	if s.QueueLimit <= 0 {
		s.QueueLimit = 1000
	}
	if s.DrainBudget <= 0 {
		s.DrainBudget = 20 * time.Second
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	return s
}

// Backoff is the wait after an event's attempt-th failed attempt.
func (s Settings) Backoff(attempt int) time.Duration {
	s = s.withDefaults()
	return s.BaseBackoff << min(attempt-1, 20)
}

// Deliverer turns record changes into queued events and sends them.
type Deliverer struct {
	st     Store
	s      Settings
	client *http.Client
}

// NewDeliverer builds the one Deliverer of a process.
func NewDeliverer(st Store, s Settings) *Deliverer {
	s = s.withDefaults()
	return &Deliverer{st: st, s: s, client: newClient(s.AllowLoopback)}
}

// Concurrency bounds: queues drained at once, and the batch drained by one scheduled run.
const (
	drainConcurrency = 8
	sweepBatch       = 100
	queueBatch       = 25
)

// Event is the Lorekeep payload of every delivery (the other formats are made from it).
type Event struct {
	ID         string    `json:"id"`
	Event      string    `json:"event"`
	CampaignID int64     `json:"campaign_id"`
	OccurredAt string    `json:"occurred_at"`
	Data       EventData `json:"data"`
}

// EventData describes the record. A deleted record's event carries its kind, id and name only.
type EventData struct {
	Kind         string  `json:"kind"`
	ID           int64   `json:"id"`
	Name         string  `json:"name"`
	EntityID     *int64  `json:"entity_id,omitempty"`
	LocationID   *int64  `json:"location_id,omitempty"`
	MapID        *int64  `json:"map_id,omitempty"`
	Type         *string `json:"type,omitempty"`
	IsPrivate    *bool   `json:"is_private,omitempty"`
	Visibility   *string `json:"visibility,omitempty"`
	Tags         []int64 `json:"tags,omitempty"`
	UpdatedBy    *int64  `json:"updated_by,omitempty"`
	Date         *string `json:"date,omitempty"`
	PreviousDate *string `json:"previous_date,omitempty"`
	Path         string  `json:"path,omitempty"` // the record's API path, to read it in full
}

// context of a change that decides who may see it: its parent's privacy and tags.
type scope struct {
	private     bool // the record, or what it hangs from, is hidden from non-admins
	tags        []int64
	privateTags []int64 // the ids of tags naming private tags
	known       bool    // false: the parent is gone (a cascade), treated as private
}

// Handle queues, for every webhook of the changes' campaigns that wants them, the events of
// changes (in stream order), then drains the queues it touched within the drain budget;
// what is left is due for the scheduled run. It returns the index of the first change it
// could not queue (len(changes) when all were) and why.
func (d *Deliverer) Handle(ctx context.Context, changes []hook.Change) (int, error) {
	hooks := map[int64][]hook.Webhook{}
	touched := map[hook.QueueRef]bool{}
	var order []hook.QueueRef
	for i, c := range changes {
		ws, ok := hooks[c.CampaignID]
		if !ok {
			var err error
			if ws, err = d.st.ListWebhooks(ctx, c.CampaignID, MaxWebhooks); err != nil {
				return i, err
			}
			hooks[c.CampaignID] = ws
		}
		names := []string{c.Kind + "." + c.Action}
		if c.Kind == "calendar" && c.Action == "updated" && c.Date != c.PreviousDate {
			names = append(names, DateChanged)
		}
		var sc *scope
		for _, w := range ws {
			for n, name := range names {
				if !w.IsActive || (len(w.Events) > 0 && !slices.Contains(w.Events, name)) {
					continue
				}
				if sc == nil {
					s, err := d.scope(ctx, c)
					if err != nil {
						return i, err
					}
					sc = &s
				}
				if !sees(&w, c, *sc) {
					continue
				}
				q := queued(c, name, n, w.IncludePrivate)
				err := d.st.Enqueue(ctx, c.CampaignID, w.ID, q, d.s.QueueLimit)
				if errors.Is(err, hook.ErrQueueFull) {
					slog.Warn("webhook queue full: event dropped", "campaign", c.CampaignID, "webhook", w.ID, "event_id", q.EventID)
					continue
				}
				if err != nil {
					return i, err
				}
				ref := hook.QueueRef{CampaignID: c.CampaignID, WebhookID: w.ID}
				if !touched[ref] {
					touched[ref] = true
					order = append(order, ref)
				}
			}
		}
	}
	d.drainAll(ctx, order)
	return len(changes), nil
}

// scope reads what decides a change's audience beyond the record: the parent entity of a note or
// event, the map of a marker, layer or group, the location of a map point (one read).
func (d *Deliverer) scope(ctx context.Context, c hook.Change) (scope, error) {
	switch c.Kind {
	case "entity_event", "entity_note":
		e, err := d.st.GetEntity(ctx, c.CampaignID, c.EntityID)
		return parentScope(err, func() scope {
			return scope{private: e.IsPrivate, tags: e.Tags, privateTags: e.PrivateTags, known: true}
		})
	case "map_marker", "map_layer", "map_group":
		m, err := d.st.GetMap(ctx, c.CampaignID, c.MapID)
		return parentScope(err, func() scope {
			return scope{private: m.IsPrivate, tags: m.Tags, privateTags: m.PrivateTags, known: true}
		})
	case "map_point":
		l, err := d.st.GetLocation(ctx, c.CampaignID, c.LocationID)
		return parentScope(err, func() scope {
			return scope{private: l.IsPrivate, tags: l.Tags, privateTags: l.PrivateTags, known: true}
		})
	}
	return scope{tags: c.Tags, privateTags: c.PrivateTags, known: true}, nil
}

// parentScope is the scope of a change's parent as read (of, when the read succeeded): none
// when the parent is gone, so that only include_private webhooks hear of the change.
func parentScope(err error, of func() scope) (scope, error) {
	if errors.Is(err, apperr.ErrNotFound) {
		return scope{}, nil
	}
	if err != nil {
		return scope{}, err
	}
	return of(), nil
}

// sees applies the webhook's audience: what its creator, an admin, may see; what a non-admin
// could not see only with include_private; and its tag filter.
func sees(w *hook.Webhook, c hook.Change, sc scope) bool {
	acc := domain.Access{UserID: w.CreatedBy, CampaignID: w.CampaignID, Role: domain.RoleAdmin}
	private := c.IsPrivate || sc.private || !sc.known
	if c.Kind == "entity_event" || c.Kind == "entity_note" || c.Kind == "map_marker" || c.Kind == "map_layer" || c.Kind == "map_group" {
		v := domain.Visibility(c.Visibility)
		if !acc.CanSeeVisibility(v, c.CreatedBy) {
			return false
		}
		member := domain.Access{Role: domain.RoleMember, UserID: -1}
		private = private || !member.CanSeeVisibility(v, c.CreatedBy)
	}
	if private && !w.IncludePrivate {
		return false
	}
	// Without include_private a private tag is not there (as for a non-admin's tags[] filter).
	tags := domain.VisibleTags(sc.tags, sc.privateTags, w.IncludePrivate)
	if len(w.Tags) > 0 && !slices.ContainsFunc(tags, func(t int64) bool { return slices.Contains(w.Tags, t) }) {
		return false
	}
	return true
}

// eventID is the same for the same change and event however often the stream delivers it:
// subscribers de-duplicate on it.
func eventID(c hook.Change, name string) string {
	h := sha256.Sum256([]byte(strconv.FormatInt(c.CampaignID, 10) + "|" + c.Kind + "|" + strconv.FormatInt(c.ID, 10) + "|" + c.Seq + "|" + name))
	return hex.EncodeToString(h[:16])
}

// queued is the event name of change c for a webhook: the record's private tags' ids only
// with includePrivate (DESIGN 11).
func queued(c hook.Change, name string, n int, includePrivate bool) hook.Queued {
	ev := Event{ID: eventID(c, name), Event: name, CampaignID: c.CampaignID, OccurredAt: domain.FormatTime(c.At),
		Data: EventData{Kind: c.Kind, ID: c.ID, Name: c.Name}}
	if c.Action != "deleted" {
		dd := &ev.Data
		private, vis, by := c.IsPrivate, c.Visibility, c.UpdatedBy
		dd.IsPrivate, dd.UpdatedBy, dd.Path = &private, &by, path(c)
		if c.EntityID != 0 {
			eid := c.EntityID
			dd.EntityID = &eid
		}
		if c.LocationID != 0 {
			lid := c.LocationID
			dd.LocationID = &lid
		}
		if c.MapID != 0 {
			mid := c.MapID
			dd.MapID = &mid
		}
		if _, owner := domain.ModuleOf(c.Kind); owner { // a record that owns an entity
			typ := c.Type
			dd.Type, dd.Tags = &typ, domain.VisibleTags(c.Tags, c.PrivateTags, includePrivate)
		}
		if vis != "" {
			dd.Visibility = &vis
		}
		if c.Kind == "calendar" {
			date, prev := c.Date, c.PreviousDate
			dd.Date = &date
			if name == DateChanged {
				dd.PreviousDate = &prev
			}
		}
	}
	body, _ := json.Marshal(ev)
	return hook.Queued{Key: c.Seq + "#" + strconv.Itoa(n), EventID: ev.ID, Event: name, Payload: body, Created: c.At}
}

// path is the record's route under the campaign prefix.
func path(c hook.Change) string {
	base := "/api/1.0/campaigns/" + strconv.FormatInt(c.CampaignID, 10) + "/"
	id := strconv.FormatInt(c.ID, 10)
	switch c.Kind {
	case "location":
		return base + "locations/" + id
	case "calendar":
		return base + "calendars/" + id
	case "entity_event":
		return base + "entities/" + strconv.FormatInt(c.EntityID, 10) + "/entity_events/" + id
	case "entity_note":
		return base + "entities/" + strconv.FormatInt(c.EntityID, 10) + "/entity_notes/" + id
	case "map_point":
		return base + "locations/" + strconv.FormatInt(c.LocationID, 10) + "/map_points/" + id
	case "map":
		return base + "maps/" + id
	case "map_marker":
		return base + "maps/" + strconv.FormatInt(c.MapID, 10) + "/map_markers/" + id
	case "map_layer":
		return base + "maps/" + strconv.FormatInt(c.MapID, 10) + "/map_layers/" + id
	case "map_group":
		return base + "maps/" + strconv.FormatInt(c.MapID, 10) + "/map_groups/" + id
	}
	if m, ok := domain.ModuleOf(c.Kind); ok { // a declared module's record: its collection
		return base + strings.ToLower(m.Plural) + "/" + id
	}
	return ""
}

// drainAll drains queues concurrently (a slow subscriber holds up only its own queue), within
// the drain budget.
func (d *Deliverer) drainAll(ctx context.Context, refs []hook.QueueRef) {
	ctx, cancel := context.WithTimeout(ctx, d.s.DrainBudget+AttemptTimeout)
	defer cancel()
	var g errgroup.Group
	g.SetLimit(drainConcurrency)
	for _, ref := range refs {
		g.Go(func() error {
			if err := d.Drain(ctx, ref.CampaignID, ref.WebhookID); err != nil {
				slog.Error("webhook drain", "campaign", ref.CampaignID, "webhook", ref.WebhookID, "error", err)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// Sweep drains the queues that are due (retries whose time came, queues a drain left): the
// scheduled run. It answers how many queues it drained.
func (d *Deliverer) Sweep(ctx context.Context) (int, error) {
	refs, err := d.st.DueQueues(ctx, d.s.Now().UTC(), sweepBatch)
	if err != nil {
		return 0, err
	}
	d.drainAll(ctx, refs)
	return len(refs), nil
}

// Drain sends a webhook's due events, oldest first, one at a time under a lease: an event is
// sent only once every event queued before it was delivered or abandoned, so a record's events
// arrive in order. A failure stops the queue until its retry time.
func (d *Deliverer) Drain(ctx context.Context, cid, wid int64) error {
	start := d.s.Now()
	ok, err := d.st.Lease(ctx, cid, wid, start, start.Add(d.s.DrainBudget+2*AttemptTimeout))
	if err != nil || !ok {
		return err
	}
	w, err := d.st.GetWebhook(ctx, cid, wid)
	if errors.Is(err, apperr.ErrNotFound) {
		return d.st.ClearQueue(ctx, cid, wid, true)
	}
	if err != nil {
		_ = d.st.Release(ctx, cid, wid, true, false)
		return err
	}
	if !w.IsActive { // events of an inactive webhook are dropped
		return d.st.ClearQueue(ctx, cid, wid, false)
	}
	items, st, err := d.st.Queue(ctx, cid, wid, queueBatch)
	if err != nil {
		_ = d.st.Release(ctx, cid, wid, true, false)
		return err
	}
	if !st.DueAt.IsZero() && st.DueAt.After(start) { // waiting for a retry
		return d.st.Release(ctx, cid, wid, true, false)
	}
	failures := st.Failures
	for _, q := range items {
		if d.s.Now().Sub(start) > d.s.DrainBudget || ctx.Err() != nil {
			return d.st.Release(context.WithoutCancel(ctx), cid, wid, false, true)
		}
		a := d.send(ctx, w, q.Payload, q.Attempts+1)
		if err := d.st.LogAttempt(ctx, a); err != nil {
			slog.Error("webhook attempt log", "error", err)
		}
		if a.Error == "" {
			failures = 0
			if err := d.st.Dequeue(ctx, cid, wid, q.Key, 0); err != nil {
				_ = d.st.Release(context.WithoutCancel(ctx), cid, wid, false, true)
				return err
			}
			continue
		}
		failures++
		if failures >= d.s.DisableAfter {
			reason := "Disabled after " + strconv.Itoa(failures) + " consecutive failed deliveries."
			if err := d.st.DisableWebhook(ctx, cid, wid, reason); err != nil {
				return err
			}
			return d.st.ClearQueue(ctx, cid, wid, false)
		}
		if q.Attempts+1 >= d.s.MaxAttempts { // abandoned: the next event goes
			if err := d.st.Dequeue(ctx, cid, wid, q.Key, failures); err != nil {
				return err
			}
			continue
		}
		due := d.s.Now().Add(d.s.Backoff(q.Attempts + 1))
		if err := d.st.Retry(ctx, cid, wid, q.Key, q.Attempts+1, failures, due); err != nil {
			return err
		}
		return d.st.Release(ctx, cid, wid, true, false)
	}
	return d.st.Release(ctx, cid, wid, false, len(items) == queueBatch)
}

// Ping sends a webhook.test event to w now and logs the attempt.
func (d *Deliverer) Ping(ctx context.Context, w *hook.Webhook) (hook.Attempt, error) {
	now := d.s.Now().UTC()
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ev := Event{ID: hex.EncodeToString(b), Event: TestEvent, CampaignID: w.CampaignID, OccurredAt: domain.FormatTime(now),
		Data: EventData{Kind: "webhook", ID: w.ID, Name: "Test"}}
	body, _ := json.Marshal(ev)
	a := d.send(ctx, w, body, 1)
	return a, d.st.LogAttempt(ctx, a)
}

// Signature is the value of the X-Lorekeep-Signature header: HMAC-SHA256, keyed with the
// webhook's secret, of the timestamp header's value, a dot and the body, in hex, after "v1=".
func Signature(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// send makes one attempt: the event in the webhook's format, signed, through the safe client.
func (d *Deliverer) send(ctx context.Context, w *hook.Webhook, payload []byte, attempt int) hook.Attempt {
	var ev Event
	_ = json.Unmarshal(payload, &ev)
	body := format(w.Format, ev, payload)
	start := d.s.Now()
	a := hook.Attempt{WebhookID: w.ID, CampaignID: w.CampaignID, EventID: ev.ID, Event: ev.Event, At: start.UTC(), Attempt: attempt}
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = describe(err)
		return a
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Lorekeep-Webhooks/1")
	h.Set("X-Lorekeep-Event", ev.Event)
	h.Set("X-Lorekeep-Event-Id", ev.ID)
	h.Set("X-Lorekeep-Delivery-Attempt", strconv.Itoa(attempt))
	h.Set("X-Lorekeep-Timestamp", ts)
	h.Set("X-Lorekeep-Signature", Signature(w.Secret, ts, body))
	clock := time.Now()
	res, err := d.client.Do(req)
	a.DurationMS = time.Since(clock).Milliseconds()
	if err != nil {
		a.Error = describe(err)
		return a
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, MaxAnswerBytes))
	res.Body.Close()
	a.Status = res.StatusCode
	if res.StatusCode < 200 || res.StatusCode > 299 {
		a.Error = "HTTP " + strconv.Itoa(res.StatusCode)
	}
	return a
}
