package store

// The table's change stream, decoded into the record changes that webhooks announce: only the
// kernel knows which item is a record's home, whatever its kind.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// StreamRecord is one change of the table's stream: from a Lambda event or from the stream
// read locally (package webhooks/stream reads both, so that neither client is linked into
// the other Lambdas).
type StreamRecord struct {
	EventName string // INSERT, MODIFY, REMOVE
	Seq       string
	At        time.Time
	Old, New  map[string]types.AttributeValue
}

// streamImage is what a change of a record item tells the webhooks, whatever its kind.
type streamImage struct {
	PK         string  `dynamo:"pk"`
	SK         string  `dynamo:"sk"`
	ID         int64   `dynamo:"id"`
	CampaignID int64   `dynamo:"campaign_id"`
	EntityID   int64   `dynamo:"entity_id"`
	LocationID int64   `dynamo:"location_id"`
	MapID      int64   `dynamo:"map_id"`
	CalendarID int64   `dynamo:"calendar_id"`
	Name       *string `dynamo:"name"`
	Type       string  `dynamo:"type"`
	IsPrivate  bool    `dynamo:"is_private"`
	Visibility string  `dynamo:"visibility"`
	Tags       []int64 `dynamo:"tags"`
	// PrivateTags: the ids of Tags naming private tags (homes keep them): a webhook without
	// include_private neither shows nor matches them.
	PrivateTags []int64 `dynamo:"private_tags"`
	Date        string  `dynamo:"date"`
	Weather     string  `dynamo:"weather"`
	// A relation's text and the privacy of its ends, which place it.
	Relation      string `dynamo:"relation"`
	OwnerPrivate  bool   `dynamo:"owner_private"`
	TargetPrivate bool   `dynamo:"target_private"`
	Version       int64  `dynamo:"version"`
	CreatedBy     int64  `dynamo:"created_by"`
	UpdatedBy     int64  `dynamo:"updated_by"`
	UpdatedAt     string `dynamo:"updated_at"`
}

// recordKind names the record whose home item (pk, sk) is, "" for any other item (copies,
// counters, links, entities, webhooks' own items...).
func recordKind(pk, sk string) string {
	sk = strings.TrimPrefix(sk, layout.SelfHome)
	prefix, _, ok := strings.Cut(sk, "#")
	if !ok {
		return ""
	}
	k, ok := layout.KindOf(prefix)
	if !ok || k.Event == "" {
		return ""
	}
	parts := strings.Split(pk, "#") // CAMPAIGN#c, or CAMPAIGN#c#PARENT#id for a child's home
	if k.Parent == "" && len(parts) == 2 || len(parts) == 4 && parts[2] == k.Parent {
		return k.Event
	}
	return ""
}

// StreamChanges turns stream records into the record changes webhooks announce, in order. Items
// that are not a record's home are left out, and so is a rewrite that changed no version (a
// migration). A note or event that moved between its two home keys (a visibility change to or
// from `self`) is one update, not a delete and a create: the removal at the old key is dropped
// when the record lives on at the other one (one read).
func StreamChanges(ctx context.Context, s *Store, recs []StreamRecord) ([]hook.Change, error) {
	var out []hook.Change
	for _, r := range recs {
		if kind, cid, mid, ok := packOf(r); ok {
			out = append(out, packChanges(r, kind, cid, mid)...)
			continue
		}
		if changes, ok := entityPackChanges(r); ok {
			out = append(out, changes...)
			continue
		}
		img := r.New
		if r.EventName == "REMOVE" {
			img = r.Old
		}
		var cur, old streamImage
		if img == nil || dynamo.UnmarshalItem(img, &cur) != nil {
			continue
		}
		kind := recordKind(cur.PK, cur.SK)
		if kind == "" || cur.ID == 0 {
			continue
		}
		if r.Old != nil {
			_ = dynamo.UnmarshalItem(r.Old, &old)
		}
		if kind == "map" {
			cur.MapID, cur.LocationID = 0, 0 // a map's parent and location are not its scope
		}
		if kind == "calendar_weather" && cur.Name == nil {
			cur.Name = &cur.Weather // a day's weather is named by its weather when it has no name
		}
		if kind == "relation" { // named by its text, private while either end is
			cur.Name, cur.IsPrivate = &cur.Relation, cur.OwnerPrivate || cur.TargetPrivate
		}
		c := hook.Change{Seq: fmt.Sprintf("%040s", r.Seq), StreamSeq: r.Seq, Kind: kind, CampaignID: cur.CampaignID, ID: cur.ID,
			EntityID: cur.EntityID, LocationID: cur.LocationID, MapID: cur.MapID, CalendarID: cur.CalendarID, Type: cur.Type, IsPrivate: cur.IsPrivate,
			Visibility: cur.Visibility, CreatedBy: cur.CreatedBy, UpdatedBy: cur.UpdatedBy, Tags: cur.Tags, PrivateTags: cur.PrivateTags, At: r.At}
		if cur.Name != nil {
			c.Name = *cur.Name
		}
		if t, err := time.Parse(layout.Timestamp, cur.UpdatedAt); err == nil && r.EventName != "REMOVE" {
			c.At = t
		}
		switch r.EventName {
		case "INSERT":
			c.Action = "created"
			if cur.Version > 1 { // a note or event moved to its other home key
				c.Action = "updated"
			}
		case "MODIFY":
			if cur.Version == old.Version {
				continue
			}
			c.Action = "updated"
			if kind == "calendar" {
				c.Date, c.PreviousDate = cur.Date, old.Date
			}
		case "REMOVE":
			c.Action = "deleted"
			if kind == "entity_event" || kind == "entity_note" || kind == "map_marker" || kind == "calendar_weather" || kind == "relation" {
				other := strings.TrimPrefix(cur.SK, layout.SelfHome)
				if other == cur.SK {
					other = layout.SelfHome + cur.SK
				}
				var probe struct {
					ID int64 `dynamo:"id"`
				}
				switch err := s.getItem(ctx, cur.PK, other, &probe); err {
				case nil:
					continue
				case apperr.ErrNotFound:
				default:
					return nil, err
				}
			}
		default:
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// packOf tells whether a stream record is a map's layers or groups pack, and whose.
// Entity packs: a family whose records are entries of one item in an entity's partition (an
// entity's attributes) declares how the stream reads the entries, and each write of the item
// is announced as its entries' changes, as a map's layers and groups are.
type entityPack struct {
	kind    string
	entries func(item dynamo.Item) map[int64]domain.PackEntry
}

var entityPacks = map[string]entityPack{}

// DeclareEntityPack announces the entries of the item at sk of every entity's partition as
// records of kind (at init): entries reads an item's, by id (their Visibility placing them).
func DeclareEntityPack(sk, kind string, entries func(item dynamo.Item) map[int64]domain.PackEntry) {
	entityPacks[sk] = entityPack{kind: kind, entries: entries}
}

// entityPackChanges are the changes of an entity pack's write (nil when r is none).
func entityPackChanges(r StreamRecord) ([]hook.Change, bool) {
	img := r.New
	if img == nil {
		img = r.Old
	}
	var k struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	if img == nil || dynamo.UnmarshalItem(img, &k) != nil {
		return nil, false
	}
	p, ok := entityPacks[k.SK]
	if !ok {
		return nil, false
	}
	parts := strings.Split(k.PK, "#")
	if len(parts) != 4 || parts[2] != layout.EntityPrefix {
		return nil, false
	}
	cid, err1 := strconv.ParseInt(parts[1], 10, 64)
	eid, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	var old, cur map[int64]domain.PackEntry
	if r.Old != nil {
		old = p.entries(r.Old)
	}
	if r.New != nil {
		cur = p.entries(r.New)
	}
	out := diffEntries(r, p.kind, old, cur)
	for i := range out {
		out[i].CampaignID, out[i].EntityID = cid, eid
	}
	return out, true
}

func packOf(r StreamRecord) (kind string, cid, mid int64, ok bool) {
	img := r.New
	if img == nil {
		img = r.Old
	}
	var k struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	if img == nil || dynamo.UnmarshalItem(img, &k) != nil {
		return "", 0, 0, false
	}
	switch k.SK {
	case layout.LayersSK:
		kind = "map_layer"
	case layout.GroupsSK:
		kind = "map_group"
	default:
		return "", 0, 0, false
	}
	parts := strings.Split(k.PK, "#")
	if len(parts) != 4 {
		return "", 0, 0, false
	}
	cid, err1 := strconv.ParseInt(parts[1], 10, 64)
	mid, err2 := strconv.ParseInt(parts[3], 10, 64)
	return kind, cid, mid, err1 == nil && err2 == nil && k.PK == layout.MapPK(cid, mid)
}

// packEntries reads a pack image's entries by id (nil for no image or an unreadable one).
func packEntries(img map[string]types.AttributeValue) map[int64]domain.PackEntry {
	var it layout.PackItem
	if img == nil || dynamo.UnmarshalItem(img, &it) != nil {
		return nil
	}
	var entries []domain.PackEntry
	if json.Unmarshal([]byte(it.Items), &entries) != nil {
		return nil
	}
	out := make(map[int64]domain.PackEntry, len(entries))
	for _, e := range entries {
		out[e.ID] = e
	}
	return out
}

// packChanges turns one write of a pack (a whole map's layers or groups) into the changes of
// its entries, by comparing the old and new images: an id only in the new one was created,
// only in the old one deleted (every entry when the map's purge removes the pack), in both
// with another updated_at updated. Each change's Seq is the record's followed by the entry's
// id, so that one record's events have their own queue keys and event ids, in id order.
func packChanges(r StreamRecord, kind string, cid, mid int64) []hook.Change {
	out := diffEntries(r, kind, packEntries(r.Old), packEntries(r.New))
	for i := range out {
		out[i].CampaignID, out[i].MapID = cid, mid
	}
	return out
}

// diffEntries compares a pack's old and new entries (see packChanges).
func diffEntries(r StreamRecord, kind string, old, cur map[int64]domain.PackEntry) []hook.Change {
	ids := make([]int64, 0, len(old)+len(cur))
	for id := range old {
		ids = append(ids, id)
	}
	for id := range cur {
		if _, ok := old[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []hook.Change
	for _, id := range ids {
		o, wasThere := old[id]
		n, isThere := cur[id]
		e, action, at := n, "updated", n.UpdatedAt
		switch {
		case !wasThere:
			action = "created"
		case !isThere:
			e, action, at = o, "deleted", r.At
		case o.UpdatedAt.Equal(n.UpdatedAt):
			continue
		}
		out = append(out, hook.Change{Seq: fmt.Sprintf("%040s.%020d", r.Seq, id), StreamSeq: r.Seq, Kind: kind,
			Action: action, ID: id, Name: e.Name, Visibility: string(e.Visibility), CreatedBy: e.CreatedBy, UpdatedBy: e.UpdatedBy, At: at})
	}
	return out
}
