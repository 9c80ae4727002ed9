package store

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
//	event's day link on its calendar  CAMPAIGN#c#CALENDAR#calid       DAY#<y>#<m>#<d>#id (dayKey: one-off,
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

// Record kinds: the KIND of their keys.
// Prefixes of items kept in their own partitions: a delete's pending marker (sweep.go) and a
// tag's member link (taglinks.go).
const (
	pendingPrefix   = "PENDING#"
	tagMemberPrefix = "TM#"
	tagPackSK       = "TMPACK" // a tag's member pack (tagpacks.go), beside its TM# items
)

const (
	locationPrefix = "LOCATION"
	entityPrefix   = "ENTITY"
	calendarPrefix = "CALENDAR"
	tagPrefix      = "TAG"
	mapPrefix      = "MAP"
	markerPrefix   = "MARKER"
	eventPrefix    = "EVENT"
	mapPointPrefix = "MAPPOINT"
	notePrefix     = "NOTE"
	weatherPrefix  = "CALWEATHER" // a calendar's manual weather of one day (calendar_weather)
	// relationPrefix keys relations in their owner's partition, relationIndexPrefix their
	// copies in the campaign's (the campaign-wide list).
	relationPrefix      = "RELATION"
	relationIndexPrefix = "REL"
)

// Fixed sort and partition keys.
const (
	metaSK      = "META"
	seqSK       = "SEQ"
	globalPK    = "GLOBAL"
	migrationPK = "MIGRATION"
)

// Prefixes of sort keys.
const (
	campaignPrefix   = "CAMPAIGN#"
	publicCopy       = "PUB#" // a record's copy in the public readers' range
	memberCopy       = "MEM#" // a record's copy in the members' range
	ownCopy          = "OWN#" // a record's copy in its creator's own range
	selfHome         = "SELF#"
	counterPrefix    = "COUNT#"
	tombstonePrefix  = "DELETING#"
	childLinkPrefix  = "CHILD#"
	dayLinkPrefix    = "DAY#"
	recurLinkPrefix  = "RECUR#"
	weatherDayPrefix = "WDAY#" // a manual weather's day key (weatherDaySK)
	reminderKind     = "REM"   // an event's reminder link: placed as an event, with its own counters
	relinkKind       = "RELINK"
	cascadeKind      = "CASCADE" // a trash's or restore's reference cascade (trash.go)
	trashedPrefix    = "TRASHED#"
	hiddenPrefix     = "HIDDEN#"
	// legacyEventLink is layout 2's event link (EVENTLINK#eid#id): the migration deletes it.
	legacyEventLink = "EVENTLINK#"
	syncPrefix      = "SYNC#" // a record's pointer by update time (store/sync.go)
	gonePrefix      = "GONE#" // a deleted record's tombstone in its list (store/sync.go)
)

// syncSK is the pointer of record id of kind updated at ts (formatTime: key order is time order).
func syncSK(kind, ts string, id int64) string { return syncPrefix + kind + "#" + ts + "#" + pad(id) }

// goneSK is the tombstone of record id of kind deleted at ts.
func goneSK(kind, ts string, id int64) string { return gonePrefix + kind + "#" + ts + "#" + pad(id) }

// goneQueueKey lists tombstone (kind, id) of campaign cid by its expiry, for the sweeper (the
// pending markers' scheme: 16 shards, sorted by time).
func goneQueueKey(cid int64, expires time.Time, kind string, id int64) itemKey {
	return itemKey{fmt.Sprintf("GONEQ#%02d", cid%pendingShards), expires.UTC().Format(pendingTimeFmt) + "#" + pad(cid) + "#" + kind + "#" + pad(id)}
}

func goneQueuePK(shard int) string { return fmt.Sprintf("GONEQ#%02d", shard) }

// afterTS is the first key of kind's pointers (or tombstones) with prefix later than ts: ts
// followed by "#~" sorts after every key at ts itself ('~' is above the digits of an id).
func afterTS(prefix, kind, ts string) string { return prefix + kind + "#" + ts + "#~" }

// pad is id in 12 digits, as fmt's %012d writes it (TestPadIsSprintf), without fmt: every key
// of every read is built with it.
func pad(id int64) string {
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
func campaignPK(cid int64) string             { return campaignPrefix + pad(cid) }
func recordSK(prefix string, id int64) string { return prefix + "#" + pad(id) }

// childPK is the partition of what hangs from record id of kind parent.
func childPK(cid int64, parent string, id int64) string {
	return campaignPK(cid) + "#" + parent + "#" + pad(id)
}

func mapPointsPK(cid, lid int64) string { return childPK(cid, locationPrefix, lid) }

// mapPK is the partition of a map's markers (and of its child maps' links).
func mapPK(cid, mid int64) string        { return childPK(cid, mapPrefix, mid) }
func entityPK(cid, eid int64) string     { return childPK(cid, entityPrefix, eid) }
func calendarPK(cid, calID int64) string { return childPK(cid, calendarPrefix, calID) }

// weatherDaySK is the day key of a calendar's manual weather on d: one per day (its
// uniqueness), ordered as dates so that a day view reads its days' weather in one Query. Keyed
// by the date, not the day number, so a change of the calendar's months leaves it in place.
func weatherDaySK(d calengine.Date) string {
	return fmt.Sprintf("%s%020d#%06d#%09d", weatherDayPrefix, uint64(d.Year)^(1<<63), d.Month, d.Day)
}

func userPK(uid int64) string       { return "USER#" + pad(uid) }
func userNamePK(name string) string { return "USERNAME#" + strings.ToLower(name) }
func memberSK(uid int64) string     { return recordSK("MEMBER", uid) }

func counterSK(kind string) string { return counterPrefix + kind }
func ownCounterSK(kind string, uid int64) string {
	return counterPrefix + kind + "#OWN#" + pad(uid)
}

// segmentSK is the counter segment of counter (a total's sk) that counts id (counters.go).
func segmentSK(counter string, id int64) string {
	return segmentPrefix(counter) + fmt.Sprintf("%08d", id/segmentWidth)
}

func segmentPrefix(counter string) string { return counter + "#S#" }

// ownPrefix is a creator's own range of kind: "A" holds every `self` item of uid (what an admin
// sees beyond the admins' range), "R" the self and self-admin items that are not private (what
// the creator sees beyond a non-admin's range).
func ownPrefix(kind string, uid int64, which string) string {
	return ownCopy + pad(uid) + "#" + which + "#" + kind + "#"
}

func tombstoneSK(kind string, id int64) string { return tombstonePrefix + recordSK(kind, id) }

func childLinkKey(cid, parentID, id int64) itemKey {
	return childLinkKeyOf(locationKind, cid, parentID, id)
}

// childLinkKeyOf is the link of record id of nested kind k in its parent's partition.
func childLinkKeyOf(k kindSpec, cid, parentID, id int64) itemKey {
	return itemKey{childPK(cid, k.prefix, parentID), childLinkPrefix + pad(id)}
}

func legacyEventLinkKey(cid, calID, eid, id int64) itemKey {
	return itemKey{calendarPK(cid, calID), legacyEventLink + pad(eid) + "#" + pad(id)}
}

// yearOffset makes every year the domain accepts (|year| < 2^53) a non-negative number of at
// most 17 digits, so that the zero-padded text sorts as the years do, negative ones included.
const yearOffset = 1 << 53

// dayKey is the date part of a day link's sort key: year (offset), month and day zero-padded to
// fixed widths (months and days of a stored event are below 10^10), so key order is date order.
func dayKey(year int64, month, day int) string {
	y := min(max(year, -yearOffset), yearOffset) + yearOffset // a day view's bound may pass the range
	return fmt.Sprintf("%s%017d#%010d#%010d#", dayLinkPrefix, y, month, day)
}

// dayLinkKey is the key of an event's link in its calendar's day view: a DAY# key by its start
// date, or RECUR#id for an event that recurs or lasts longer than the day view's look-back.
func dayLinkKey(cid, calID, id int64, recurring bool, year int64, month, day int) itemKey {
	if recurring {
		return itemKey{calendarPK(cid, calID), recurLinkPrefix + pad(id)}
	}
	return itemKey{calendarPK(cid, calID), dayKey(year, month, day) + pad(id)}
}

func relinkMarkerSK(began time.Time, cid, eid int64) string {
	return pendingSK(began, cid, relinkKind, eid)
}

// Search and mentions (names.go, mentions.go).
const (
	namesPrefix   = "NAMES#"
	mentionPrefix = "MIN#"
)

func namesKey(cid, eid int64) itemKey {
	return itemKey{campaignPK(cid), namesPrefix + pad(eid/namesWidth)}
}

// mentionKey is the reverse item saying that entity src's entry (post 0) or post mentions
// entity target.
func mentionKey(cid, target, src, post int64) itemKey {
	return itemKey{entityPK(cid, target), mentionPrefix + pad(src) + "#" + pad(post)}
}

func migrationSK() string { return fmt.Sprintf("LAYOUT#%d", LayoutVersion) }

// imageMigrationSK is the checkpoint of the legacy image_url fetch (images_migrate.go).
const imageMigrationSK = "LEGACY-IMAGES"

func replayKey(cid, uid int64, key string) itemKey {
	return itemKey{"IDEMPOTENCY#" + pad(cid) + "#" + pad(uid), "KEY#" + key}
}

func pendingPK(cid int64) string { return fmt.Sprintf("%s%02d", pendingPrefix, cid%pendingShards) }

func pendingSK(began time.Time, cid int64, kind string, id int64) string {
	return began.UTC().Format(pendingTimeFmt) + "#" + pad(cid) + "#" + kind + "#" + pad(id)
}

const rateSK = "RATE"

func ratePK(caller string) string { return "RATE#" + caller }

// Webhooks (store/webhooks.go): subscriptions, their queues and attempt logs.
const (
	webhookPrefix  = "WEBHOOK"
	webhookCounter = counterPrefix + webhookPrefix
	queueStateSK   = "STATE"
	queuePrefix    = "Q#"
	logPrefix      = "LOG#"
	dueIndexPK     = "WEBHOOKDUE"
)

func webhookPK(cid, wid int64) string { return childPK(cid, webhookPrefix, wid) }

func dueSK(due time.Time, cid, wid int64) string {
	return formatTime(due) + "#" + pad(cid) + "#" + pad(wid)
}

// Relations and attributes (store/relations.go, store/attributes.go).
const (
	incomingPrefix = "RELIN#"
	attributesSK   = "ATTRS"
	relatedPrefix  = "RELATED"
	// relatedWidth is the owners (by entity id) one related=1 bucket holds: a page's owners
	// fall in a few buckets, one Query each.
	relatedWidth = 100
)

// incomingKey is the pointer, in the target's partition, to relation id.
func incomingKey(cid, target, id int64) itemKey {
	return itemKey{entityPK(cid, target), incomingPrefix + pad(id)}
}

// relatedPK is the related=1 bucket of owner entity eid; relatedSK one relation, note or event
// in it.
func relatedPK(cid, eid int64) string { return childPK(cid, relatedPrefix, eid/relatedWidth) }
func relatedSK(eid int64, kind string, id int64) string {
	return pad(eid) + "#" + kind + "#" + pad(id)
}

// relatedSlot is the copy of child id (kind NOTE or EVENT) of entity eid in its related bucket:
// not counted, never read by id, written and removed with the child's other slots.
func relatedSlot(cid, eid int64, kind string, id int64) slot {
	return slot{pk: relatedPK(cid, eid), sk: relatedSK(eid, kind, id), id: id}
}

// relatedLocationPK is the related=1 bucket of location lid's child links, keyed by location
// (not entity) id: the link writers know the parent location only.
func relatedLocationPK(cid, lid int64) string {
	return childPK(cid, relatedPrefix+"#"+locationPrefix, lid/relatedWidth)
}

// relatedChildKey is the copy of location child's link in its parent's related bucket.
func relatedChildKey(cid, parent, child int64) itemKey {
	return itemKey{relatedLocationPK(cid, parent), relatedSK(parent, relatedChildKind, child)}
}

// relatedChildKind is the kind of child link copies in a location's related bucket.
const relatedChildKind = "CHILD"

// isRelatedBucket reports whether pk is a related=1 bucket (of entities or of locations).
func isRelatedBucket(pk string) bool { return strings.Contains(pk, "#"+relatedPrefix+"#") }

// trashedSK is a trashed record (or entity) of kind: its home as it was (store/trash.go).
func trashedSK(kind string, id int64) string { return trashedPrefix + recordSK(kind, id) }

// purgeKey lists the trash of entity eid by its expiry, for the sweeper's purge (the pending
// markers' scheme: 16 shards, sorted by time).
func purgeKey(cid int64, expires time.Time, eid int64) itemKey {
	return itemKey{purgePK(int(cid % pendingShards)), expires.UTC().Format(pendingTimeFmt) + "#" + pad(cid) + "#" + pad(eid)}
}

func purgePK(shard int) string { return fmt.Sprintf("PURGE#%02d", shard) }

// hiddenRelationKey keeps relation id, hidden because trashed entity eid is its owner or target.
func hiddenRelationKey(cid, eid, id int64) itemKey {
	return itemKey{entityPK(cid, eid), hiddenPrefix + recordSK(relationPrefix, id)}
}

// hiddenEventKey keeps event id of entity eid, hidden because its calendar calID is trashed.
func hiddenEventKey(cid, calID, eid, id int64) itemKey {
	return itemKey{calendarPK(cid, calID), hiddenPrefix + eventPrefix + "#" + pad(eid) + "#" + pad(id)}
}
