// Package store is Lorekeep's DynamoDB adapter: the only package that knows the single-table key
// schema. Every item of a campaign lives under keys that begin with that campaign, so no read or
// write can cross tenants; ids are allocated from atomic counters.
//
// # Key layout (version 3, see LayoutVersion and Migrate)
//
// A list page must cost what the page costs, for every reader: guregu/dynamo drops Limit on a
// filtered query, and any filter evaluates what it drops, so audiences are key ranges, never
// filters. Readers fall into three classes: admins, members (members and viewers) and public
// readers (of a public campaign), plus, for entity events and notes, the creator of a `self` or
// `self-admin` record. A record is written at its home key and copied, in the same
// transaction (strongly consistent, unlike a GSI), into the range of every class that sees it
// whoever created it:
//
//	record                    home (admins' range)       copies
//	location, calendar        KIND#id                    PUB#KIND#id unless is_private
//	their entity              ENTITY#eid                 PUB#ENTITY#eid unless is_private
//	map point                 MAPPOINT#id                -
//	note, event: all          KIND#id                    MEM#KIND#id, PUB#KIND#id
//	             member       KIND#id                    MEM#KIND#id
//	             admin        KIND#id                    -
//	             self-admin   KIND#id                    OWN#uid#R#KIND#id
//	             self         SELF#KIND#id (no list)     OWN#uid#A#KIND#id, OWN#uid#R#KIND#id
//
// (an is_private event has no MEM, PUB or R copy). Links, written in the same transactions,
// let a delete find what hangs from a record strongly consistent (an index could lag behind a
// write made just before): a child location is linked in its parent's partition (CHILD#id,
// beside the parent's map points), an event in its calendar's (a day link and reminder links in
// CAMPAIGN#c#CALENDAR#id, which also serve the day view and the reminders: calendarlinks.go;
// events have no index keys). A location's public copy is the non-admins' projection: it
// carries parent_location_id only when the parent is public (layout 3; layout 2 kept a growing
// set of private ids on the counter instead), and a child link carries its child's privacy. An
// admin lists KIND# and OWN#<self>#A#; a
// member MEM#KIND# and OWN#<self>#R#; a public reader PUB#KIND# and OWN#<self>#R#: two
// disjoint ranges, merged by id, the second one only when its counter is not zero. Locations and
// calendars: an admin lists LOCATION#, anyone else PUB#LOCATION#. An entity mirrors its record
// (name, privacy, tags, image, write history) and is rewritten with it, so Kanka's entities list
// reads ENTITY# or PUB#ENTITY# alone; the entity has no version of its own. A list of one kind
// of entity reads that kind's own range instead (its ids grow with its entities' ids).
//
// A membership is two items written together, MEMBER#uid in the campaign's partition and
// CAMPAIGN#c in the user's, each range counted (COUNT#MEMBER, COUNT#CAMPAIGN, class "all"):
// a campaign's members and a user's campaigns page like any list (campaigns.go).
//
// Each range is counted in a total item (COUNT#KIND, or COUNT#KIND#OWN#uid) of its partition,
// an attribute per class ("admin", "mem", "pub", "A", "R"), and in segment items of 10,000 ids
// (COUNT#KIND#S#k) holding per class the segment's total and one count per bucket of 100 ids
// (counters.go): no counter item grows with the campaign. Counters change in the transaction
// that writes the items they count. Page 1 and cursor pages read the totals (with the campaign
// access); a page number maps to a start key from the segments (one more Query), so ?page=N
// evaluates at most 100+limit+1 items of the range; a cursor (the last id) starts the query
// right after it.
//
// Filters no key answers (name and type substrings, tags, lastSync, ...) read the reader's
// ranges once, counting every match for the total and keeping the page: a name search costs the
// reader's whole range (all locations for an admin), once per request.
//
// # Writes that depend on other records
//
// Every such write carries the dependency as a condition in its own transaction: a child
// (location under a parent, map point, note, event) checks that its parent, entity and calendar
// still exist; a move of a location checks that each link of the new parent chain still has the
// parent it was read with, so concurrent moves cannot close a cycle. Updates are conditional on
// the version read. A failed existence check (txBuilder.need, found by the transaction's
// cancellation reasons) answers what it means, ErrNotFound or a field's 422, never a conflict
// that a retry could not resolve.
//
// # Deleting an owner (location, calendar)
//
// One transaction, conditional on the version read, removes the record, its copies, its entity
// and its counts and writes a tombstone (DELETING#KIND#id) and its sweeper marker: from then on
// the record is invisible and its children cannot be written (their checks fail). The cascade
// then runs in batches, at most writeConcurrency at once: partitions cleared with
// BatchWriteItem, child locations made roots and other entities' events on a deleted calendar
// removed (with their copies and counts) in transactions. Tombstone and marker go last, in one
// transaction. A failure before the first transaction changes nothing; after it the delete has
// happened (it answers so) and is pending: the sweeper, a retry of the DELETE or `lorekeep
// migrate` finishes the cascade.
//
// # Pending deletes (sweep.go)
//
//	item                 pk                                   sk
//	sweeper marker       PENDING#<cid mod 16, two digits>     <began, UTC .000000Z>#<cid>#<KIND>#<id>
//
// Markers sort by the time their delete began, so SweepDeletes reads, with one Query per shard
// and no scan, only the deletes pending for longer than its cutoff. They carry campaign_id,
// kind and id (the tombstone's key); the tombstone holds its marker's sort key (marker).
//
// # Reads ahead
//
// CampaignAccess reads the campaign, the caller's membership and whatever the route declared
// (domain.Ref: the record, its parent, a list's counters) in one BatchGetItem; the reads here take
// those items from what the returned context carries (readahead.go). A show is one round trip, a list page two.
package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/store/tokens"
)

// Config says where the table is (awsdb.Config). An empty Endpoint means real AWS.
type Config = awsdb.Config

// ConfigFromEnv reads TABLE_NAME (default "lorekeep"), DYNAMODB_ENDPOINT and AWS_REGION.
func ConfigFromEnv(getenv func(string) string) Config { return awsdb.ConfigFromEnv(getenv) }

// OpenFromEnv opens the store that ConfigFromEnv describes: a Lambda's cold start.
func OpenFromEnv(ctx context.Context, getenv func(string) string) (*Store, error) {
	return Open(ctx, ConfigFromEnv(getenv))
}

// Store reads and writes every Lorekeep record.
type Store struct {
	db    *dynamo.DB
	table dynamo.Table
	now   func() time.Time
	// rateHints: each caller's rate bucket as this instance last saw it (TakeRate's first guess).
	rateMu    sync.Mutex
	rateHints map[string]int64
}

// AtTime is the store reading and writing as if the time were now(): the sweeper's tests run
// it past the trash's 30 days. It shares the connection.
func (s *Store) AtTime(now func() time.Time) *Store {
	return &Store{db: s.db, table: s.table, now: now, rateHints: map[string]int64{}}
}

// New wraps an SDK configuration; build it once per process.
func New(cfg aws.Config, tableName string) *Store {
	db := dynamo.New(cfg, tokens.LocalOptions(cfg.BaseEndpoint != nil), captureTx)
	return &Store{db: db, table: db.Table(tableName), now: func() time.Time { return time.Now().UTC() }}
}

func formatTime(t time.Time) string { return t.UTC().Format(timestamp) }
func parseTime(s string) time.Time {
	if s == "" { // a link's copy of a record has no stamps: time.Parse would fail with an error value
		return time.Time{}
	}
	if t, ok := parseStamp(s); ok {
		return t
	}
	t, _ := time.Parse(timestamp, s)
	return t
}

// parseStamp reads a timestamp as the store writes it ("2006-01-02T15:04:05.000000Z", every
// item has two) without time.Parse's general layout machinery, a visible part of a list
// page's decoding (issue 20); ok false for anything else, which time.Parse then answers.
func parseStamp(s string) (time.Time, bool) {
	if len(s) != len(timestamp) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[26] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	us, ok7 := num(20, 26)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, us*1000, time.UTC)
	if t.Day() != d { // past the month's end: time.Parse's error
		return time.Time{}, false
	}
	return t, true
}

// nextIDs atomically advances one or more id sequences of the item (pk, SEQ) and returns the new
// values in order: one round trip however many ids a write needs.
func (s *Store) nextIDs(ctx context.Context, pk string, names ...string) ([]int64, error) {
	u := s.table.Update("pk", pk).Range("sk", seqSK)
	for _, n := range names {
		u = u.Add(n, 1)
	}
	var raw dynamo.Item
	if err := u.Value(ctx, &raw); err != nil {
		return nil, wrap(err)
	}
	ids := make([]int64, len(names))
	for i, n := range names {
		if err := dynamo.Unmarshal(raw[n], &ids[i]); err != nil {
			return nil, err
		}
		if ids[i] <= 0 || ids[i] > domain.MaxID {
			return nil, fmt.Errorf("store: id sequence %s exhausted", n)
		}
	}
	return ids, nil
}

// wrap turns SDK failures into domain errors (one mapping, in awsdb).
func wrap(err error) error { return awsdb.Wrap(err) }

// Client exposes the SDK client for table administration.
func (s *Store) Client() *dynamodb.Client {
	c, _ := s.db.Client().(*dynamodb.Client)
	return c
}

// Open loads the SDK configuration and builds a Store: the one call a main makes at cold start.
// tweak (optional) adjusts the SDK configuration, e.g. to count calls in tests.
func Open(ctx context.Context, c Config, tweak ...func(*aws.Config)) (*Store, error) {
	cfg := awsdb.AWSConfig(c)
	for _, t := range tweak {
		t(&cfg)
	}
	return New(cfg, c.TableName), nil
}

const timestamp = domain.TimeLayout
