package layout

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/calengine"
)

// Every key of the table is built here; the layout it makes is this table (the package doc says
// why: audience copies, counters, links, tombstones). Ids are zero-padded to 12 digits so that
// key order is id order; c is the campaign, KIND one of the record prefixes below.
//
//	item                              pk                              sk
//	campaign                          CAMPAIGN#c                      META
//	member (role, name); their count  CAMPAIGN#c                      MEMBER#uid; COUNT#MEMBER
//	id counters                       CAMPAIGN#c (GLOBAL: campaigns,  SEQ
//	                                  users)
//	location, calendar, entity        CAMPAIGN#c                      KIND#id, PUB#KIND#id
//	range counter total               the range's partition           COUNT#KIND, COUNT#KIND#OWN#uid
//	range counter segment             the range's partition           <total's sk>#S#<id/10000, 8 digits>
//	tombstone of a delete             CAMPAIGN#c                      DELETING#KIND#id
//	sync pointer of a record          its list's partition (CAMPAIGN#c SYNC#KIND#<updated_at>#id
//	                                  for locations, calendars, entities; the entity's for notes
//	                                  and events; the location's for map points)
//	tombstone of a deleted record     its list's partition            GONE#KIND#<deleted_at>#id
//	  (30 days, ttl)
//	its expiry, for the sweeper       GONEQ#<c mod 16, 2 digits>      <ttl>#c#KIND#id
//	map point                         CAMPAIGN#c#LOCATION#lid         MAPPOINT#id
//	child location link               CAMPAIGN#c#LOCATION#parent      CHILD#id
//	note, event                       CAMPAIGN#c#ENTITY#eid           KIND#id or SELF#KIND#id (home),
//	                                                                  MEM#KIND#id, PUB#KIND#id,
//	                                                                  OWN#uid#A#KIND#id, OWN#uid#R#KIND#id
//	event's day link on its calendar  CAMPAIGN#c#CALENDAR#calid       DAY#<y>#<m>#<d>#id (DayKey: one-off,
//	                                                                  at most 31 days) or RECUR#id (else)
//	event's reminder link (audience   CAMPAIGN#c#CALENDAR#calid       REM#id or SELF#REM#id, MEM#REM#id,
//	  copies, as an event's)                                          PUB#REM#id, OWN#uid#A|R#REM#id
//	name shard (names.go)             CAMPAIGN#c                      NAMES#<eid/400>
//	mention of entity eid (reverse)   CAMPAIGN#c#ENTITY#eid           MIN#<source eid>#<post id, 0: entry>
//	relation (owner's partition)      CAMPAIGN#c#ENTITY#owner         as a note: RELATION#id, SELF#RELATION#id,
//	                                                                  MEM#, PUB#, OWN#uid#A|R# copies
//	relation, campaign-wide list      CAMPAIGN#c                      REL#id, MEM#REL#id, PUB#REL#id,
//	                                                                  OWN#uid#A|R#REL#id (copies only)
//	relation pointing at an entity    CAMPAIGN#c#ENTITY#target        RELIN#id
//	map marker linked to an entity    CAMPAIGN#c#ENTITY#target        MARKIN#mid#id
//	live map naming a location        CAMPAIGN#c#LOCATION#lid         LOCMAP#mid
//	related=1 bucket of an entity:    CAMPAIGN#c#RELATED#<owner/100>  <owner>#RELATION#id, <owner>#NOTE#id,
//	  copies of its relations, notes                                  <owner>#EVENT#id (owner: entity id)
//	  and events
//	related=1 bucket of a location:   CAMPAIGN#c#RELATED#LOCATION#    <lid>#CHILD#child
//	  copies of its child links       <lid/100>
//	an entity's attributes (one pack) CAMPAIGN#c#ENTITY#eid           ATTRS
//	user; a user's campaigns; count   USER#uid                        META; CAMPAIGN#c; COUNT#CAMPAIGN
//	user name                         USERNAME#name                   META
//	token                             TOKEN#<sha256>                  TOKEN (package store/tokens)
//	migration checkpoint              MIGRATION                       LAYOUT#version
//	pending delete's sweeper marker   PENDING#<c mod 16, 2 digits>    <began>#c#KIND#id
//	  (or an entity's link re-placing:                                <began>#c#RELINK#eid)
//	  (or a trash's or restore's                                      <began>#c#CASCADE#eid)
//	  reference cascade:
//	trashed record and its entity     CAMPAIGN#c                      TRASHED#KIND#id, TRASHED#ENTITY#eid
//	  (30 days, ttl; store/trash.go)
//	its purge, for the sweeper        PURGE#<c mod 16, 2 digits>      <ttl>#c#eid
//	a relation hidden by a trash      CAMPAIGN#c#ENTITY#eid (trashed) HIDDEN#RELATION#id
//	an event hidden by a calendar's   CAMPAIGN#c#CALENDAR#calid       HIDDEN#EVENT#<eid>#id
//	calendar weather (one a day)      CAMPAIGN#c#CALENDAR#calid       CALWEATHER#id or SELF#CALWEATHER#id
//	                                                                  (home), MEM#, PUB#, OWN# copies
//	                                                                  by visibility, as notes
//	  its day key (a copy; unique)    CAMPAIGN#c#CALENDAR#calid       WDAY#<year^2^63, 20 digits>#<month,
//	                                                                  6>#<day, 9>
//	  trash
//	idempotency key (24 h, ttl)       IDEMPOTENCY#c#uid               KEY#<key>
//	a caller's rate bucket (ttl)      RATE#<caller>                   RATE
//	webhook; their count              CAMPAIGN#c                      WEBHOOK#id; COUNT#WEBHOOK
//	webhook queue state, events, log  CAMPAIGN#c#WEBHOOK#id           STATE, Q#<seq>#<n>, LOG#...
//	  (a due queue: gsi1pk WEBHOOKDUE, gsi1sk <due>#c#id)
//
// GSI1 holds only the webhooks' due queue (layout 2 also indexed events by calendar there).

// Prefixes of items kept in their own partitions: a delete's pending marker (sweep.go) and a
// tag's member link (taglinks.go).
const (
	PendingPrefix   = "PENDING#"
	TagMemberPrefix = "TM#"
	TagPackSK       = "TMPACK" // a tag's member pack (tagpacks.go), beside its TM# items
)

// Record kinds: the KIND of their keys.
const (
	LocationPrefix = "LOCATION"
	EntityPrefix   = "ENTITY"
	CalendarPrefix = "CALENDAR"
	TagPrefix      = "TAG"
	MapPrefix      = "MAP"
	MarkerPrefix   = "MARKER"
	EventPrefix    = "EVENT"
	MapPointPrefix = "MAPPOINT"
	NotePrefix     = "NOTE"
	WeatherPrefix  = "CALWEATHER" // a calendar's manual weather of one day (calendar_weather)
	// RelationPrefix keys relations in their owner's partition, RelationIndexPrefix their
	// copies in the campaign's (the campaign-wide list).
	RelationPrefix      = "RELATION"
	RelationIndexPrefix = "REL"
)

// Fixed sort and partition keys.
const (
	MetaSK      = "META"
	SeqSK       = "SEQ"
	GlobalPK    = "GLOBAL"
	MigrationPK = "MIGRATION"
)

// Prefixes of sort keys.
const (
	CampaignPrefix   = "CAMPAIGN#"
	PublicCopy       = "PUB#" // a record's copy in the public readers' range
	MemberCopy       = "MEM#" // a record's copy in the members' range
	OwnCopy          = "OWN#" // a record's copy in its creator's own range
	SelfHome         = "SELF#"
	CounterPrefix    = "COUNT#"
	TombstonePrefix  = "DELETING#"
	ChildLinkPrefix  = "CHILD#"
	DayLinkPrefix    = "DAY#"
	RecurLinkPrefix  = "RECUR#"
	WeatherDayPrefix = "WDAY#" // a manual weather's day key (WeatherDaySK)
	ReminderKind     = "REM"   // an event's reminder link: placed as an event, with its own counters
	RelinkKind       = "RELINK"
	CascadeKind      = "CASCADE" // a trash's or restore's reference cascade (trash.go)
	TrashedPrefix    = "TRASHED#"
	HiddenPrefix     = "HIDDEN#"
	// LegacyEventLink is layout 2's event link (EVENTLINK#eid#id): the migration deletes it.
	LegacyEventLink = "EVENTLINK#"
	SyncPrefix      = "SYNC#" // a record's pointer by update time (store/sync.go)
	GonePrefix      = "GONE#" // a deleted record's tombstone in its list (store/sync.go)
)

// SyncSK is the pointer of record id of kind updated at ts (FormatTime: key order is time order).
func SyncSK(kind, ts string, id int64) string { return SyncPrefix + kind + "#" + ts + "#" + Pad(id) }

// GoneSK is the tombstone of record id of kind deleted at ts.
func GoneSK(kind, ts string, id int64) string { return GonePrefix + kind + "#" + ts + "#" + Pad(id) }

// GoneQueueKey lists tombstone (kind, id) of campaign cid by its expiry, for the sweeper (the
// pending markers' scheme: 16 shards, sorted by time).
func GoneQueueKey(cid int64, expires time.Time, kind string, id int64) ItemKey {
	return ItemKey{fmt.Sprintf("GONEQ#%02d", cid%PendingShards), expires.UTC().Format(PendingTimeFmt) + "#" + Pad(cid) + "#" + kind + "#" + Pad(id)}
}

func GoneQueuePK(shard int) string { return fmt.Sprintf("GONEQ#%02d", shard) }

// AfterTS is the first key of kind's pointers (or tombstones) with prefix later than ts: ts
// followed by "#~" sorts after every key at ts itself ('~' is above the digits of an id).
func AfterTS(prefix, kind, ts string) string { return prefix + kind + "#" + ts + "#~" }

// Pad is id in 12 digits, as fmt's %012d writes it (TestPadIsSprintf), without fmt: every key
// of every read is built with it.
func Pad(id int64) string {
	if id < 0 {
		return fmt.Sprintf("%012d", id)
	}
	var b [20]byte
	d := strconv.AppendInt(b[:0], id, 10) // on the stack: an int64 has at most 19 digits
	if len(d) >= 12 {
		return string(d)
	}
	var out [12]byte
	n := copy(out[12-len(d):], d)
	for i := 0; i < 12-n; i++ {
		out[i] = '0'
	}
	return string(out[:])
}

func CampaignPK(cid int64) string { return CampaignPrefix + Pad(cid) }

func RecordSK(prefix string, id int64) string { return prefix + "#" + Pad(id) }

// ChildPK is the partition of what hangs from record id of kind parent.
func ChildPK(cid int64, parent string, id int64) string {
	return CampaignPK(cid) + "#" + parent + "#" + Pad(id)
}

func MapPointsPK(cid, lid int64) string { return ChildPK(cid, LocationPrefix, lid) }

// MapPK is the partition of a map's markers (and of its child maps' links).
func MapPK(cid, mid int64) string { return ChildPK(cid, MapPrefix, mid) }

func EntityPK(cid, eid int64) string { return ChildPK(cid, EntityPrefix, eid) }

func CalendarPK(cid, calID int64) string { return ChildPK(cid, CalendarPrefix, calID) }

// WeatherDaySK is the day key of a calendar's manual weather on d: one per day (its
// uniqueness), ordered as dates so that a day view reads its days' weather in one Query. Keyed
// by the date, not the day number, so a change of the calendar's months leaves it in place.
func WeatherDaySK(d calengine.Date) string {
	return fmt.Sprintf("%s%020d#%06d#%09d", WeatherDayPrefix, uint64(d.Year)^(1<<63), d.Month, d.Day)
}

func UserPK(uid int64) string { return "USER#" + Pad(uid) }

func UserNamePK(name string) string { return "USERNAME#" + strings.ToLower(name) }

func MemberSK(uid int64) string { return RecordSK("MEMBER", uid) }

func CounterSK(kind string) string { return CounterPrefix + kind }

func OwnCounterSK(kind string, uid int64) string {
	return CounterPrefix + kind + "#OWN#" + Pad(uid)
}

// SegmentSK is the counter segment of counter (a total's sk) that counts id (counters.go).
func SegmentSK(counter string, id int64) string {
	return SegmentPrefix(counter) + fmt.Sprintf("%08d", id/SegmentWidth)
}

func SegmentPrefix(counter string) string { return counter + "#S#" }

// OwnPrefix is a creator's own range of kind: "A" holds every `self` item of uid (what an admin
// sees beyond the admins' range), "R" the self and self-admin items that are not private (what
// the creator sees beyond a non-admin's range).
func OwnPrefix(kind string, uid int64, which string) string {
	return OwnCopy + Pad(uid) + "#" + which + "#" + kind + "#"
}

func TombstoneSK(kind string, id int64) string { return TombstonePrefix + RecordSK(kind, id) }

func ChildLinkKey(cid, parentID, id int64) ItemKey {
	return ChildLinkKeyOf(LocationKind, cid, parentID, id)
}

// ChildLinkKeyOf is the link of record id of nested kind k in its parent's partition.
func ChildLinkKeyOf(k KindSpec, cid, parentID, id int64) ItemKey {
	return ItemKey{ChildPK(cid, k.Prefix, parentID), ChildLinkPrefix + Pad(id)}
}

func LegacyEventLinkKey(cid, calID, eid, id int64) ItemKey {
	return ItemKey{CalendarPK(cid, calID), LegacyEventLink + Pad(eid) + "#" + Pad(id)}
}

// YearOffset makes every year the domain accepts (|year| < 2^53) a non-negative number of at
// most 17 digits, so that the zero-padded text sorts as the years do, negative ones included.
const YearOffset = 1 << 53

// DayKey is the date part of a day link's sort key: year (offset), month and day zero-padded to
// fixed widths (months and days of a stored event are below 10^10), so key order is date order.
func DayKey(year int64, month, day int) string {
	y := min(max(year, -YearOffset), YearOffset) + YearOffset // a day view's bound may pass the range
	return fmt.Sprintf("%s%017d#%010d#%010d#", DayLinkPrefix, y, month, day)
}

// DayLinkKey is the key of an event's link in its calendar's day view: a DAY# key by its start
// date, or RECUR#id for an event that recurs or lasts longer than the day view's look-back.
func DayLinkKey(cid, calID, id int64, recurring bool, year int64, month, day int) ItemKey {
	if recurring {
		return ItemKey{CalendarPK(cid, calID), RecurLinkPrefix + Pad(id)}
	}
	return ItemKey{CalendarPK(cid, calID), DayKey(year, month, day) + Pad(id)}
}

func RelinkMarkerSK(began time.Time, cid, eid int64) string {
	return PendingSK(began, cid, RelinkKind, eid)
}

// Search and mentions (names.go, mentions.go).
const (
	NamesPrefix   = "NAMES#"
	MentionPrefix = "MIN#"
)

func NamesKey(cid, eid int64) ItemKey {
	return ItemKey{CampaignPK(cid), NamesPrefix + Pad(eid/NamesWidth)}
}

// MentionKey is the reverse item saying that entity src's entry (post 0) or post mentions
// entity target.
func MentionKey(cid, target, src, post int64) ItemKey {
	return ItemKey{EntityPK(cid, target), MentionPrefix + Pad(src) + "#" + Pad(post)}
}

func MigrationSK() string { return fmt.Sprintf("LAYOUT#%d", Version) }

// ImageMigrationSK is the checkpoint of the legacy image_url fetch (store/ops/images_migrate.go).
const ImageMigrationSK = "LEGACY-IMAGES"

func ReplayKey(cid, uid int64, key string) ItemKey {
	return ItemKey{"IDEMPOTENCY#" + Pad(cid) + "#" + Pad(uid), "KEY#" + key}
}

func PendingPK(cid int64) string { return fmt.Sprintf("%s%02d", PendingPrefix, cid%PendingShards) }

func PendingSK(began time.Time, cid int64, kind string, id int64) string {
	return began.UTC().Format(PendingTimeFmt) + "#" + Pad(cid) + "#" + kind + "#" + Pad(id)
}

const RateSK = "RATE"

func RatePK(caller string) string { return "RATE#" + caller }

// ParseTimeIndexSK reads the ids of a time-ordered index key (<time>#<cid>#<id>, written by
// store.TimeIndexSK: a family's items indexed by when they are due).
func ParseTimeIndexSK(sk string) (cid, id int64, ok bool) {
	parts := strings.Split(sk, "#")
	if len(parts) != 3 {
		return 0, 0, false
	}
	cid, err1 := strconv.ParseInt(parts[1], 10, 64)
	id, err2 := strconv.ParseInt(parts[2], 10, 64)
	return cid, id, err1 == nil && err2 == nil
}

// Relations and attributes (store/relations.go, store/attributes.go).
const (
	IncomingPrefix = "RELIN#"
	AttributesSK   = "ATTRS"
	RelatedPrefix  = "RELATED"
	// RelatedWidth is the owners (by entity id) one related=1 bucket holds: a page's owners
	// fall in a few buckets, one Query each.
	RelatedWidth = 100
)

// IncomingKey is the pointer, in the target's partition, to relation id.
func IncomingKey(cid, target, id int64) ItemKey {
	return ItemKey{EntityPK(cid, target), IncomingPrefix + Pad(id)}
}

// RelatedPK is the related=1 bucket of owner entity eid; RelatedSK one relation, note or event
// in it.
func RelatedPK(cid, eid int64) string { return ChildPK(cid, RelatedPrefix, eid/RelatedWidth) }

func RelatedSK(eid int64, kind string, id int64) string {
	return Pad(eid) + "#" + kind + "#" + Pad(id)
}

// RelatedSlot is the copy of child id (kind NOTE or EVENT) of entity eid in its related bucket:
// not counted, never read by id, written and removed with the child's other slots.
func RelatedSlot(cid, eid int64, kind string, id int64) Slot {
	return Slot{PK: RelatedPK(cid, eid), SK: RelatedSK(eid, kind, id), Id: id}
}

// RelatedLocationPK is the related=1 bucket of location lid's child links, keyed by location
// (not entity) id: the link writers know the parent location only.
func RelatedLocationPK(cid, lid int64) string {
	return ChildPK(cid, RelatedPrefix+"#"+LocationPrefix, lid/RelatedWidth)
}

// RelatedChildKey is the copy of location child's link in its parent's related bucket.
func RelatedChildKey(cid, parent, child int64) ItemKey {
	return ItemKey{RelatedLocationPK(cid, parent), RelatedSK(parent, RelatedChildKind, child)}
}

// RelatedChildKind is the kind of child link copies in a location's related bucket.
const RelatedChildKind = "CHILD"

// IsRelatedBucket reports whether pk is a related=1 bucket (of entities or of locations).
func IsRelatedBucket(pk string) bool { return strings.Contains(pk, "#"+RelatedPrefix+"#") }

// TrashedSK is a trashed record (or entity) of kind: its home as it was (store/trash.go).
func TrashedSK(kind string, id int64) string { return TrashedPrefix + RecordSK(kind, id) }

// PurgeKey lists the trash of entity eid by its expiry, for the sweeper's purge (the pending
// markers' scheme: 16 shards, sorted by time).
func PurgeKey(cid int64, expires time.Time, eid int64) ItemKey {
	return ItemKey{PurgePK(int(cid % PendingShards)), expires.UTC().Format(PendingTimeFmt) + "#" + Pad(cid) + "#" + Pad(eid)}
}

func PurgePK(shard int) string { return fmt.Sprintf("PURGE#%02d", shard) }

// HiddenRelationKey keeps relation id, hidden because trashed entity eid is its owner or target.
func HiddenRelationKey(cid, eid, id int64) ItemKey {
	return ItemKey{EntityPK(cid, eid), HiddenPrefix + RecordSK(RelationPrefix, id)}
}

// HiddenEventKey keeps event id of entity eid, hidden because its calendar calID is trashed.
func HiddenEventKey(cid, calID, eid, id int64) ItemKey {
	return ItemKey{CalendarPK(cid, calID), HiddenPrefix + EventPrefix + "#" + Pad(eid) + "#" + Pad(id)}
}
