// Package hook holds the webhook types the store and the webhooks family share: pure Go, so the
// store can read and write them without linking the family's HTTP client into every Lambda.
package hook

import (
	"errors"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ErrLimit: the campaign has as many webhooks as it may.
var ErrLimit = errors.New("webhook limit reached")

// Formats of a webhook's payload.
const (
	FormatLorekeep = "lorekeep"
	FormatKanka    = "kanka"
	FormatDiscord  = "discord"
)

// Webhook is a campaign's subscription to its record changes.
type Webhook struct {
	domain.Meta
	URL            string
	Events         []string // empty: every event
	Tags           []int64  // empty: every record; else records (or their entity) with one of them
	Format         string
	IsActive       bool
	IncludePrivate bool
	Secret         string
	// DisabledReason says why delivery stopped on its own (too many consecutive failures).
	DisabledReason string
}

// Clone copies w for an update.
func (w *Webhook) Clone() *Webhook {
	c := *w
	c.Events = append([]string(nil), w.Events...)
	c.Tags = append([]int64(nil), w.Tags...)
	return &c
}

// Change is one record change read from the table's change stream, as the webhooks need it.
type Change struct {
	// Seq orders the changes of one record (the stream's sequence number, zero-padded).
	Seq        string
	StreamSeq  string // the stream's own sequence number, to report a failed record
	Action     string // created, updated, deleted
	Kind       string // location, calendar, tag, entity_event, entity_note, calendar_weather, map_point, map, map_marker, map_layer, map_group, a module's code
	CampaignID int64
	ID         int64
	EntityID   int64 // a location's or calendar's own entity; a note's or event's parent entity
	LocationID int64 // a map point's location
	MapID      int64 // a marker's, layer's or group's map
	CalendarID int64 // a calendar weather's calendar
	Name       string
	Type       string
	IsPrivate  bool
	Visibility string // notes, events, markers, layers and groups
	CreatedBy  int64
	UpdatedBy  int64
	Tags       []int64
	// PrivateTags are the ids of Tags naming private tags: the admins' only (include_private).
	PrivateTags []int64
	// Date and PreviousDate are a calendar's current date after and before the change.
	Date, PreviousDate string
	At                 time.Time
}

// Queued is one event on its way to one webhook: what the delivery queue carries.
type Queued struct {
	CampaignID, WebhookID int64
	EventID               string
	Event                 string // e.g. location.created, calendar.date_changed
	Payload               []byte // Lorekeep's JSON form of the event (other formats derive from it)
	Created               time.Time
}

// QueueState is the delivery state of one webhook: its consecutive failures and the event
// that is being retried (the first of its queue, as deliveries go in order) with its attempts.
type QueueState struct {
	Failures int
	Head     string // event id of the event being retried; "" when none
	Attempts int    // failed attempts of Head
}

// Attempt is one delivery attempt, kept for the deliveries list.
type Attempt struct {
	WebhookID, CampaignID int64
	EventID               string
	Event                 string
	At                    time.Time
	Status                int // HTTP status, 0 when there was no answer
	DurationMS            int64
	Error                 string
	Attempt               int
}
