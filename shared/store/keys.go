package store

import (
	"fmt"
	"strings"
	"time"
)

// Every key of the table is built here; the layout it makes is this table (the package doc says
// why: audience copies, counters, links, tombstones). Ids are zero-padded to 12 digits so that
// key order is id order; c is the campaign, KIND one of the record prefixes below.
//
//	item                              pk                              sk
//	campaign                          CAMPAIGN#c                      META
//	member (role)                     CAMPAIGN#c                      MEMBER#uid
//	id counters                       CAMPAIGN#c (GLOBAL: campaigns,  SEQ
//	                                  users)
//	location, calendar, entity        CAMPAIGN#c                      KIND#id, PUB#KIND#id
//	range counter                     the range's partition           COUNT#KIND, COUNT#KIND#OWN#uid
//	tombstone of a delete             CAMPAIGN#c                      DELETING#KIND#id
//	map point                         CAMPAIGN#c#LOCATION#lid         MAPPOINT#id
//	child location link               CAMPAIGN#c#LOCATION#parent      CHILD#id
//	note, event                       CAMPAIGN#c#ENTITY#eid           KIND#id or SELF#KIND#id (home),
//	                                                                  MEM#KIND#id, PUB#KIND#id,
//	                                                                  OWN#uid#A#KIND#id, OWN#uid#R#KIND#id
//	event link on its calendar        CAMPAIGN#c#CALENDAR#calid       EVENTLINK#eid#id
//	relation (owner's partition)      CAMPAIGN#c#ENTITY#owner         as a note: RELATION#id, SELF#RELATION#id,
//	                                                                  MEM#, PUB#, OWN#uid#A|R# copies
//	relation, campaign-wide list      CAMPAIGN#c                      REL#id, MEM#REL#id, PUB#REL#id,
//	                                                                  OWN#uid#A|R#REL#id (copies only)
//	relation pointing at an entity    CAMPAIGN#c#ENTITY#target        RELIN#id
//	relation, related=1 bucket        CAMPAIGN#c#RELATED#<owner/100>  <owner>#RELATION#id
//	an entity's attributes (one pack) CAMPAIGN#c#ENTITY#eid           ATTRS
//	user; a user's campaigns          USER#uid                        META; CAMPAIGN#c
//	user name                         USERNAME#name                   META
//	token                             TOKEN#<sha256>                  TOKEN (package store/tokens)
//	migration checkpoint              MIGRATION                       LAYOUT#version
//	pending delete's sweeper marker   PENDING#<c mod 16, 2 digits>    <began>#c#KIND#id
//	idempotency key (24 h, ttl)       IDEMPOTENCY#c#uid               KEY#<key>
//	a caller's rate bucket (ttl)      RATE#<caller>                   RATE
//	webhook; their count              CAMPAIGN#c                      WEBHOOK#id; COUNT#WEBHOOK
//	webhook queue state, events, log  CAMPAIGN#c#WEBHOOK#id           STATE, Q#<seq>#<n>, LOG#...
//	  (a due queue: gsi1pk WEBHOOKDUE, gsi1sk <due>#c#id)
//
// GSI1 (calendarGSI) indexes events by CAMPAIGN#c#CALENDAR#calid for the day view.

// Record kinds: the KIND of their keys.
const (
	locationPrefix = "LOCATION"
	entityPrefix   = "ENTITY"
	calendarPrefix = "CALENDAR"
	eventPrefix    = "EVENT"
	mapPointPrefix = "MAPPOINT"
	notePrefix     = "NOTE"
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
	campaignPrefix  = "CAMPAIGN#"
	publicCopy      = "PUB#" // a record's copy in the public readers' range
	memberCopy      = "MEM#" // a record's copy in the members' range
	ownCopy         = "OWN#" // a record's copy in its creator's own range
	selfHome        = "SELF#"
	counterPrefix   = "COUNT#"
	tombstonePrefix = "DELETING#"
	childLinkPrefix = "CHILD#"
	eventLinkPrefix = "EVENTLINK#"
)

func pad(id int64) string                     { return fmt.Sprintf("%012d", id) }
func campaignPK(cid int64) string             { return campaignPrefix + pad(cid) }
func recordSK(prefix string, id int64) string { return prefix + "#" + pad(id) }

// childPK is the partition of what hangs from record id of kind parent.
func childPK(cid int64, parent string, id int64) string {
	return campaignPK(cid) + "#" + parent + "#" + pad(id)
}

func mapPointsPK(cid, lid int64) string  { return childPK(cid, locationPrefix, lid) }
func entityPK(cid, eid int64) string     { return childPK(cid, entityPrefix, eid) }
func calendarPK(cid, calID int64) string { return childPK(cid, calendarPrefix, calID) }

// calendarGSI is the GSI1 partition of the entity events that use calendar calID, wherever
// their entity is: the calendar's day view and the clean-up when it is deleted read it. It is
// the calendar's own partition key (calendarPK), as an index key.
func calendarGSI(cid, calID int64) string { return calendarPK(cid, calID) }

func userPK(uid int64) string       { return "USER#" + pad(uid) }
func userNamePK(name string) string { return "USERNAME#" + strings.ToLower(name) }
func memberSK(uid int64) string     { return recordSK("MEMBER", uid) }

func counterSK(kind string) string { return counterPrefix + kind }
func ownCounterSK(kind string, uid int64) string {
	return counterPrefix + kind + "#OWN#" + pad(uid)
}

// ownPrefix is a creator's own range of kind: "A" holds every `self` item of uid (what an admin
// sees beyond the admins' range), "R" the self and self-admin items that are not private (what
// the creator sees beyond a non-admin's range).
func ownPrefix(kind string, uid int64, which string) string {
	return ownCopy + pad(uid) + "#" + which + "#" + kind + "#"
}

func tombstoneSK(kind string, id int64) string { return tombstonePrefix + recordSK(kind, id) }

func childLinkKey(cid, parentID, id int64) itemKey {
	return itemKey{mapPointsPK(cid, parentID), childLinkPrefix + pad(id)}
}

func eventLinkKey(cid, calID, eid, id int64) itemKey {
	return itemKey{calendarPK(cid, calID), eventLinkPrefix + pad(eid) + "#" + pad(id)}
}

func migrationSK() string { return fmt.Sprintf("LAYOUT#%d", LayoutVersion) }

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

// relatedPK is the related=1 bucket of owner entity eid; relatedSK one relation in it.
func relatedPK(cid, eid int64) string { return childPK(cid, relatedPrefix, eid/relatedWidth) }
func relatedSK(eid int64, kind string, id int64) string {
	return pad(eid) + "#" + kind + "#" + pad(id)
}
