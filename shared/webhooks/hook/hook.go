// Package hook holds the webhook types the store and the webhooks family share: pure Go, so the
// store can read and write them without linking the family's HTTP client into every Lambda.
package hook

import (
	"errors"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Errors of the store's webhook writes.
var (
	ErrLimit     = errors.New("webhook limit reached")
	ErrQueueFull = errors.New("webhook queue full")
)

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
	Kind       string // location, calendar, entity_event, entity_note, map_point, map, map_marker, map_layer, map_group
	CampaignID int64
	ID         int64
	EntityID   int64 // a location's or calendar's own entity; a note's or event's parent entity
	LocationID int64 // a map point's location
	MapID      int64 // a marker's, layer's or group's map
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

// Queued is one event waiting in a webhook's queue: its payload is built when it is sent.
type Queued struct {
	Key      string // queue order: the change's sequence and the event's index in it
	EventID  string
	Event    string // e.g. location.created, calendar.date_changed
	Payload  []byte // Lorekeep's JSON form of the event (other formats derive from it)
	Attempts int
	Created  time.Time
}

// QueueState is the delivery state of one webhook's queue.
type QueueState struct {
	Queued   int       // events waiting
	Failures int       // consecutive failed attempts
	DueAt    time.Time // zero: nothing due
	Leased   bool      // a drain holds the queue
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

// QueueRef names a webhook whose queue has something due.
type QueueRef struct{ CampaignID, WebhookID int64 }
