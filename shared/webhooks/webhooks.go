// Package webhooks is the campaign webhooks family: the admins' routes (CRUD, a test ping, the
// deliveries list), the rules of a webhook, and delivery (deliver.go): events made from the
// table's change stream, queued per webhook in a FIFO queue (queue.go), signed, sent through a
// client that reaches public addresses only (client.go), retried with exponential backoff.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// Store is what the family needs of storage (package store implements it).
type Store interface {
	CreateWebhook(ctx context.Context, w *hook.Webhook, max int) error
	GetWebhook(ctx context.Context, cid, id int64) (*hook.Webhook, error)
	ListWebhooks(ctx context.Context, cid int64, limit int) ([]hook.Webhook, error)
	UpdateWebhook(ctx context.Context, prev, next *hook.Webhook) error
	DeleteWebhook(ctx context.Context, w *hook.Webhook) error
	DisableWebhook(ctx context.Context, cid, id int64, reason string) error
	Delivery(ctx context.Context, cid, wid int64) (*hook.Webhook, hook.QueueState, error)
	SaveState(ctx context.Context, cid, wid int64, st hook.QueueState) error
	LogAttempt(ctx context.Context, a hook.Attempt) error
	Attempts(ctx context.Context, cid, wid int64, limit int) ([]hook.Attempt, error)
	GetEntity(ctx context.Context, cid, eid int64) (*domain.Entity, error)
	GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error)
	GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error)
	GetMap(ctx context.Context, cid, id int64) (*domain.Map, error)
}

// Limits of a campaign's webhooks.
const (
	MaxWebhooks = 20 // per campaign
	MaxEvents   = 20 // names in `events`
	MaxTags     = 20 // ids in `tags`
	// MaxListedAttempts is how many recent attempts the deliveries list holds.
	MaxListedAttempts = 100
)

// The record events: each kind the kernel's stream announces (its kind table's, the declared
// modules' included) and a map's layers and groups, created, updated or deleted;
// calendar.date_changed and webhook.test besides.
var (
	packKinds = []string{"map_layer", "map_group"}
	actions   = []string{"created", "updated", "deleted"}
	formats   = []string{hook.FormatLorekeep, hook.FormatKanka, hook.FormatDiscord}
)

// EventNames are the values `events` accepts (read once the kinds are declared, at first use).
var EventNames = sync.OnceValue(func() []string {
	var out []string
	for _, k := range append(store.EventKinds(), packKinds...) {
		for _, a := range actions {
			out = append(out, k+"."+a)
		}
	}
	return append(out, DateChanged)
})

// DateChanged is the event of a calendar whose current date moved; TestEvent the ping's.
const (
	DateChanged = "calendar.date_changed"
	TestEvent   = "webhook.test"
)

// Register mounts the family's routes with the settings of the environment (SettingsFromEnv).
func Register(api *httpapi.API, kernel *store.Store) {
	RegisterWith(api, kernel, SettingsFromEnv(os.Getenv))
}

// RegisterWith mounts the family's routes.
func RegisterWith(api *httpapi.API, kernel *store.Store, s Settings) {
	st := NewStorage(kernel)
	h := &handlers{st: st, s: s.withDefaults(), d: NewDeliverer(st, nil, s)}
	httpapi.Mount(api, "/webhooks", "/webhooks/{id}", httpapi.Resource[hook.Webhook, *hook.Webhook, httpapi.None]{
		Parent:  func(r *httpapi.Request) (httpapi.None, error) { return httpapi.None{}, admin(r) },
		Visible: h.visible,
		Apply:   h.apply,
		Create: func(ctx context.Context, w *hook.Webhook) error {
			err := st.CreateWebhook(ctx, w, MaxWebhooks)
			if err == hook.ErrLimit {
				return apperr.Invalid("url", "The campaign may not have more than "+strconv.Itoa(MaxWebhooks)+" webhooks.")
			}
			return err
		},
		Update: st.UpdateWebhook,
		Delete: st.DeleteWebhook,
		Render: func(r *httpapi.Request, w *hook.Webhook) (any, error) {
			return render(w, r.Method == "POST"), nil
		},
	})
	api.Handle("GET", "/webhooks", h.list)
	api.Handle("POST", "/webhooks/{id}/test", h.test)
	api.Handle("GET", "/webhooks/{id}/deliveries", h.deliveries)
}

type handlers struct {
	st Store
	s  Settings
	d  *Deliverer
}

// admin: webhooks are the campaign admins' alone (they see what an admin sees).
func admin(r *httpapi.Request) error {
	if !r.Access.IsAdmin() {
		return apperr.ErrForbidden
	}
	return nil
}

func (h *handlers) visible(r *httpapi.Request) (httpapi.None, *hook.Webhook, error) {
	if err := admin(r); err != nil {
		return httpapi.None{}, nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	w, err := h.st.GetWebhook(r.Context(), r.Access.CampaignID, id)
	return httpapi.None{}, w, err
}

// apply merges the body into next (prev nil: a create) and checks every rule.
func (h *handlers) apply(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *hook.Webhook) error {
	rd := domain.NewReader(in)
	u := rd.String("url", MaxURLBytes)
	if u.Present() {
		if msg := checkURL(u.Value, h.s.AllowHTTP, h.s.AllowLoopback); msg != "" {
			rd.Errs.Add("url", msg)
		} else {
			next.URL = u.Value
		}
	}
	if prev == nil {
		rd.Required("url", u.Present())
	}
	if items, f := rd.List("events", MaxEvents); f.Set {
		var names []string
		for i, it := range items {
			s, ok := it.(string)
			if !ok || !slices.Contains(EventNames(), s) {
				rd.Errs.Add("events."+strconv.Itoa(i), "The selected events."+strconv.Itoa(i)+" is invalid.")
				continue
			}
			if !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
		next.Events = names
	}
	if t := rd.IDs("tags", MaxTags); t.Set {
		next.Tags = t.Value
	}
	if f := rd.OneOf("format", formats, nil); f.Present() {
		next.Format = f.Value
	} else if next.Format == "" {
		next.Format = hook.FormatLorekeep
	}
	if b := rd.Bool("is_active"); b.Present() {
		if b.Value && !next.IsActive {
			next.DisabledReason = ""
		}
		next.IsActive = b.Value
	} else if prev == nil {
		next.IsActive = true
	}
	if b := rd.Bool("include_private"); b.Present() {
		next.IncludePrivate = b.Value
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if prev == nil {
		next.Secret = newSecret()
	}
	return nil
}

// newSecret is 256 random bits, shown once (in the create's answer).
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + hex.EncodeToString(b)
}

// WebhookJSON is a webhook as the API answers it; Secret only in the create's answer.
type WebhookJSON struct {
	ID             int64    `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Tags           []int64  `json:"tags"`
	Format         string   `json:"format"`
	IsActive       bool     `json:"is_active"`
	IncludePrivate bool     `json:"include_private"`
	DisabledReason *string  `json:"disabled_reason"`
	Secret         string   `json:"secret,omitempty"`
	httpapi.AuditJSON
}

func render(w *hook.Webhook, withSecret bool) WebhookJSON {
	j := WebhookJSON{ID: w.ID, URL: w.URL, Events: w.Events, Tags: w.Tags, Format: w.Format, IsActive: w.IsActive,
		IncludePrivate: w.IncludePrivate, AuditJSON: httpapi.RenderAudit(w.Meta)}
	if j.Events == nil {
		j.Events = []string{}
	}
	if j.Tags == nil {
		j.Tags = []int64{}
	}
	if w.DisabledReason != "" {
		j.DisabledReason = &w.DisabledReason
	}
	if withSecret {
		j.Secret = w.Secret
	}
	return j
}

// list answers the campaign's webhooks (at most MaxWebhooks: one page, one query).
func (h *handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	if err := admin(r); err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	ws, err := h.st.ListWebhooks(r.Context(), r.Access.CampaignID, MaxWebhooks)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]WebhookJSON, len(ws))
	for i := range ws {
		out[i] = render(&ws[i], false)
	}
	return pageOf(out, page), nil
}

// pageOf answers one page of a short list held whole in memory.
func pageOf[T any](all []T, p domain.PageRequest) httpapi.Reply {
	from := min((p.Page-1)*p.Limit, len(all))
	to := min(from+p.Limit, len(all))
	return httpapi.Many(all[from:to], len(all), "", nil, p)
}

// AttemptJSON is one delivery attempt as the deliveries list shows it.
type AttemptJSON struct {
	EventID    string      `json:"event_id"`
	Event      string      `json:"event"`
	At         domain.Time `json:"at"`
	Attempt    int         `json:"attempt"`
	Status     *int        `json:"status"`
	DurationMS int64       `json:"duration_ms"`
	Error      *string     `json:"error"`
	OK         bool        `json:"ok"`
}

func renderAttempt(a hook.Attempt) AttemptJSON {
	j := AttemptJSON{EventID: a.EventID, Event: a.Event, At: domain.Time(a.At), Attempt: a.Attempt, DurationMS: a.DurationMS,
		OK: a.Error == "" && a.Status >= 200 && a.Status < 300}
	if a.Status != 0 {
		j.Status = &a.Status
	}
	if a.Error != "" {
		j.Error = &a.Error
	}
	return j
}

// deliveries answers a webhook's recent attempts, newest first.
func (h *handlers) deliveries(r *httpapi.Request) (httpapi.Reply, error) {
	_, w, err := h.visible(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	as, err := h.st.Attempts(r.Context(), w.CampaignID, w.ID, MaxListedAttempts)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]AttemptJSON, len(as))
	for i, a := range as {
		out[i] = renderAttempt(a)
	}
	return pageOf(out, page), nil
}

// test sends a webhook.test event to the webhook at once and answers the attempt: the one
// request that waits for a subscriber, which is its purpose, for at most AttemptTimeout.
func (h *handlers) test(r *httpapi.Request) (httpapi.Reply, error) {
	_, w, err := h.visible(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	a, err := h.d.Ping(r.Context(), w)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderAttempt(a)), nil
}
