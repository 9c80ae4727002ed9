package domain

// Read is a kind of read a route declares ahead, so that the campaign access read fetches it too
// (one round trip for a show, two for a list page). Which items each kind reads is the store's
// business (package store, readahead.go).
type Read uint8

// The reads a route can declare: a record by id (under Ref.Parent for a map point, note or
// event), or a list's counts (under Ref.Parent for map points, notes and events).
const (
	ReadLocation Read = iota + 1 // and the private ids, for its parent
	ReadCalendar
	ReadEntity
	ReadMapPoint
	ReadNote
	ReadEvent
	ReadLocationList
	ReadCalendarList
	ReadEntityList
	ReadMapPointList
	ReadNoteList
	ReadEventList
	ReadMemberList           // the campaign's member count
	ReadReminderList         // a calendar and its reminders' counts (ID: the calendar)
	ReadAttributes           // an entity (Ref.Parent) and its attribute pack
	ReadRelation             // a relation and its owner entity (Ref.Parent)
	ReadRelationList         // an entity's relation counts
	ReadCampaignRelationList // the campaign-wide relation counts
	ReadTag                  // a tag and its public copy
	ReadTagList              // the tags' counts
	ReadWeather              // a calendar (Ref.Parent) and one of its weathers
	ReadWeatherList          // a calendar (Ref.Parent) and its weathers' counts
	ReadMap                  // a map and its public copy
	ReadMapList              // the maps' counts
	ReadMarker               // a map (home and public copy) and one of its markers
	ReadMarkerList           // a map and its markers' counts
	ReadMapPacks             // a map and its layers and groups
)

// Ref names one read ahead: its kind, the record's id and the parent it hangs from.
type Ref struct {
	Read   Read
	ID     int64
	Parent int64
}
