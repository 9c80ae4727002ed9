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
	"sync"
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
	if s.Now == nil {
		s.Now = time.Now
	}
	return s
}

// Backoff is the wait after an event's attempt-th failed attempt (at most the queue's 12 hours).
func (s Settings) Backoff(attempt int) time.Duration {
	s = s.withDefaults()
	return min(s.BaseBackoff<<min(attempt-1, 20), maxVisibility)
}

// Deliverer turns record changes into queued events (the stream's side) and sends what the
// queue hands it (the delivery side).
type Deliverer struct {
	st     Store
	q      *Queue
	s      Settings
	client *http.Client
}

// NewDeliverer builds the one Deliverer of a process; q is nil where nothing is queued or
// delivered (the routes' ping sends at once).
func NewDeliverer(st Store, q *Queue, s Settings) *Deliverer {
	s = s.withDefaults()
	return &Deliverer{st: st, q: q, s: s, client: newClient(s.AllowLoopback)}
}

// groupConcurrency bounds the webhooks one delivery run sends to at once (a batch holds at
// most 10 messages).
const groupConcurrency = 10

// retryAfterError is how long a delivery that could not read or write its state (DynamoDB
// unavailable) leaves the webhook's events before trying again.
const retryAfterError = 30 * time.Second

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
	CalendarID   *int64  `json:"calendar_id,omitempty"`
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
// changes in stream order, and sends nothing itself: delivery runs behind the queue. It
// returns the index of the first change it could not queue (len(changes) when all were) and
// why; queuing again from there is safe (a change's messages are deduplicated by the queue,
// and carry the same event ids anyway).
func (d *Deliverer) Handle(ctx context.Context, changes []hook.Change) (int, error) {
	hooks := map[int64][]hook.Webhook{}
	var pending []hook.Queued
	var from []int // the change of each pending event
	flush := func() (int, error) {
		n, err := d.q.Send(ctx, pending)
		if err != nil {
			return from[n], err
		}
		pending, from = pending[:0], from[:0]
		return 0, nil
	}
	fail := func(i int, err error) (int, error) {
		if len(pending) > 0 {
			if j, ferr := flush(); ferr != nil {
				return j, ferr
			}
		}
		return i, err
	}
	for i, c := range changes {
		ws, ok := hooks[c.CampaignID]
		if !ok {
			var err error
			if ws, err = d.st.ListWebhooks(ctx, c.CampaignID, MaxWebhooks); err != nil {
				return fail(i, err)
			}
			hooks[c.CampaignID] = ws
		}
		names := []string{c.Kind + "." + c.Action}
		if c.Kind == "calendar" && c.Action == "updated" && c.Date != c.PreviousDate {
			names = append(names, DateChanged)
		}
		var sc *scope
		for _, w := range ws {
			for _, name := range names {
				if !w.IsActive || (len(w.Events) > 0 && !slices.Contains(w.Events, name)) {
					continue
				}
				if sc == nil {
					s, err := d.scope(ctx, c)
					if err != nil {
						return fail(i, err)
					}
					sc = &s
				}
				if !sees(&w, c, *sc) {
					continue
				}
				pending = append(pending, queued(c, w.ID, name, w.IncludePrivate))
				from = append(from, i)
			}
		}
		if len(pending) >= sqsBatch {
			if j, err := flush(); err != nil {
				return j, err
			}
		}
	}
	if len(pending) > 0 {
		if j, err := flush(); err != nil {
			return j, err
		}
	}
	return len(changes), nil
}

// scope reads what decides a change's audience beyond the record: the parent entity of a note or
// event, the map of a marker, layer or group, the location of a map point (one read).
func (d *Deliverer) scope(ctx context.Context, c hook.Change) (scope, error) {
	switch c.Kind {
	case "entity_event", "entity_note", "attribute":
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
	case "calendar_weather":
		cal, err := d.st.GetCalendar(ctx, c.CampaignID, c.CalendarID)
		return parentScope(err, func() scope {
			return scope{private: cal.IsPrivate, tags: cal.Tags, privateTags: cal.PrivateTags, known: true}
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
	if c.Kind == "entity_event" || c.Kind == "entity_note" || c.Kind == "map_marker" || c.Kind == "map_layer" || c.Kind == "map_group" || c.Kind == "calendar_weather" || c.Kind == "relation" || c.Kind == "attribute" {
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

// queued is the event name of change c for webhook wid: the record's private tags' ids only
// with includePrivate (DESIGN 11).
func queued(c hook.Change, wid int64, name string, includePrivate bool) hook.Queued {
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
		if c.CalendarID != 0 {
			calID := c.CalendarID
			dd.CalendarID = &calID
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
	return hook.Queued{CampaignID: c.CampaignID, WebhookID: wid, EventID: ev.ID, Event: name, Payload: body, Created: c.At}
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
	case "calendar_weather":
		return base + "calendars/" + strconv.FormatInt(c.CalendarID, 10) + "/calendar_weather/" + id
	case "relation":
		return base + "entities/" + strconv.FormatInt(c.EntityID, 10) + "/relations/" + id
	case "attribute":
		return base + "entities/" + strconv.FormatInt(c.EntityID, 10) + "/attributes/" + id
	}
	if m, ok := domain.ModuleOf(c.Kind); ok { // a declared module's record: its collection
		return base + strings.ToLower(m.Plural) + "/" + id
	}
	return ""
}

// Deliver sends the events a delivery run was handed (a batch of the queue's messages) and
// answers the ids of those to hand out again. Each webhook's events go one at a time, in
// queue order; webhooks go concurrently. A failed attempt hides the event, and what follows it
// of its webhook in the batch, for its backoff; the event is given up on (to the dead-letter
// queue) after MaxAttempts, and the webhook switched off after DisableAfter consecutive
// failures. What is settled is deleted at once, which frees the webhook's group for its next
// events without waiting for the rest of the batch.
func (d *Deliverer) Deliver(ctx context.Context, batch []Received) []string {
	type group struct {
		cid, wid int64
		msgs     []Received
		evs      []hook.Queued
	}
	var groups []*group
	byID := map[[2]int64]*group{}
	var junk []Received
	for _, m := range batch {
		e, err := decode(m.Body)
		if err != nil { // nothing to deliver it to
			slog.Error("webhook queue: unreadable message dropped", "message_id", m.ID, "error", err)
			junk = append(junk, m)
			continue
		}
		k := [2]int64{e.CampaignID, e.WebhookID}
		g := byID[k]
		if g == nil {
			g = &group{cid: e.CampaignID, wid: e.WebhookID}
			byID[k] = g
			groups = append(groups, g)
		}
		g.msgs, g.evs = append(g.msgs, m), append(g.evs, e)
	}
	if len(junk) > 0 {
		d.settle(ctx, junk)
	}
	var mu sync.Mutex
	var failed []string
	var eg errgroup.Group
	eg.SetLimit(groupConcurrency)
	for _, g := range groups {
		eg.Go(func() error {
			again := d.deliverGroup(ctx, g.cid, g.wid, g.msgs, g.evs)
			mu.Lock()
			for _, m := range again {
				failed = append(failed, m.ID)
			}
			mu.Unlock()
			return nil
		})
	}
	_ = eg.Wait()
	return failed
}

// deliverGroup sends one webhook's events in order and answers those to hand out again.
func (d *Deliverer) deliverGroup(ctx context.Context, cid, wid int64, msgs []Received, evs []hook.Queued) []Received {
	w, st, err := d.st.Delivery(ctx, cid, wid)
	if errors.Is(err, apperr.ErrNotFound) || (err == nil && !w.IsActive) { // gone or off: dropped
		d.settle(ctx, msgs)
		return nil
	}
	if err != nil {
		slog.Error("webhook delivery state", "campaign", cid, "webhook", wid, "error", err)
		return d.later(ctx, msgs, retryAfterError)
	}
	var done []Received
	defer func() { d.settle(ctx, done) }()
	for i, e := range evs {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < AttemptTimeout+2*time.Second {
			return d.later(ctx, msgs[i:], 0) // out of time: handed out again at once, in order
		}
		attempt := 1
		if st.Head == e.EventID {
			attempt = st.Attempts + 1
		}
		a := d.send(ctx, w, e.Payload, attempt)
		if err := d.st.LogAttempt(ctx, a); err != nil {
			slog.Error("webhook attempt log", "error", err)
		}
		if a.Error == "" {
			if st != (hook.QueueState{}) {
				st = hook.QueueState{}
				if err := d.st.SaveState(ctx, cid, wid, st); err != nil {
					slog.Error("webhook delivery state", "campaign", cid, "webhook", wid, "error", err)
				}
			}
			done = append(done, msgs[i])
			continue
		}
		st.Failures++
		if st.Failures >= d.s.DisableAfter {
			reason := "Disabled after " + strconv.Itoa(st.Failures) + " consecutive failed deliveries."
			if err := d.st.DisableWebhook(ctx, cid, wid, reason); err != nil {
				slog.Error("webhook disable", "campaign", cid, "webhook", wid, "error", err)
				return d.later(ctx, msgs[i:], retryAfterError)
			}
			_ = d.st.SaveState(ctx, cid, wid, hook.QueueState{})
			done = append(done, msgs[i:]...) // its queue is dropped: it is off
			return nil
		}
		if attempt >= d.s.MaxAttempts { // given up on: the next event goes
			if err := d.q.Abandon(ctx, e); err != nil {
				slog.Error("webhook dead-letter queue", "campaign", cid, "webhook", wid, "error", err)
				return d.later(ctx, msgs[i:], retryAfterError)
			}
			slog.Warn("webhook event given up on", "campaign", cid, "webhook", wid, "event_id", e.EventID, "attempts", attempt)
			st.Head, st.Attempts = "", 0
			if err := d.st.SaveState(ctx, cid, wid, st); err != nil {
				slog.Error("webhook delivery state", "campaign", cid, "webhook", wid, "error", err)
			}
			done = append(done, msgs[i])
			continue
		}
		st.Head, st.Attempts = e.EventID, attempt
		if err := d.st.SaveState(ctx, cid, wid, st); err != nil {
			slog.Error("webhook delivery state", "campaign", cid, "webhook", wid, "error", err)
		}
		return d.later(ctx, msgs[i:], d.s.Backoff(attempt))
	}
	return nil
}

// later hides messages for wait and answers them, to be handed out again after it.
func (d *Deliverer) later(ctx context.Context, ms []Received, wait time.Duration) []Received {
	if err := d.q.Hide(context.WithoutCancel(ctx), ms, wait); err != nil {
		slog.Error("webhook queue visibility", "error", err)
	}
	return ms
}

// settle deletes settled messages (the run's caller deletes them too; a second delete is a no-op).
func (d *Deliverer) settle(ctx context.Context, ms []Received) {
	if len(ms) == 0 {
		return
	}
	if err := d.q.Delete(context.WithoutCancel(ctx), ms); err != nil {
		slog.Error("webhook queue delete", "error", err)
	}
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
