package domain

import "time"

// Deletions in sync (DESIGN 3, "Sync pointers and tombstones"): every delete leaves a tombstone
// in its list for GoneHistory, and `?deleted=1` on a list answers them instead of records.

// GoneHistory is how long a tombstone is kept (and answered): Kanka's 30 days of trash.
const GoneHistory = 30 * 24 * time.Hour

// MaxGoneRead bounds the tombstones one `?deleted=1` read evaluates: beyond, the lastSync is a
// 422 (a client that missed more deletions than that resyncs the list in full).
const MaxGoneRead = 10000

// The lists whose deletions are kept (GoneQuery.List).
const (
	GoneLocations = "location"
	GoneCalendars = "calendar"
	GoneEntities  = "entity"
	GoneTags      = "tag"
	GoneMaps      = "map"
	GoneMarkers   = "map_marker"
	GoneNotes     = "note"
	GoneEvents    = "event"
	GoneMapPoints = "map_point"
	GoneWeather   = "calendar_weather"
	// GoneRelations is an entity's relations, GoneCampaignRelations the campaign-wide list.
	GoneRelations         = "relation"
	GoneCampaignRelations = "campaign_relation"
	GoneAttributes        = "attribute"
)

// GoneQuery names the deletions a reader asks for: those of List (under Parent, the entity of
// notes and events or the location of map points; 0 for campaign lists) deleted after Since.
type GoneQuery struct {
	List   string
	Parent int64
	Since  time.Time
}

// Gone is one deletion: the record's id, its entity for locations and calendars, and when.
type Gone struct {
	ID        int64
	EntityID  int64
	DeletedAt time.Time
}

// Removal is one record a list read with lastSync no longer holds for its reader: deleted
// (at when), or Hidden, re-placed out of the reader's view (made private, or its visibility
// changed) at when, or deleted after it was.
type Removal struct {
	ID       int64
	EntityID int64
	Hidden   bool
	At       time.Time
}
