package layout

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// BucketWidth is the id width of one bucket of a range counter: ?page=N starts its query at the
// bucket holding item (N-1)*limit and evaluates at most BucketWidth+limit items.
const BucketWidth = 100

// Audience classes of a list reader.
const (
	ClassAdmin  = "admin" // campaign admins
	ClassMember = "mem"   // members and viewers
	ClassPublic = "pub"   // readers of a public campaign who are not members
)

// slot is one item of a record: its key, and the counted range it belongs to.
type Slot struct {
	PK, SK  string
	Home    bool   // the item reads by id go to; writes are conditional on its version
	Counter string // sk of the counter item (in pk) that counts the range; "" when not counted
	Attr    string // attribute of the counter item holding the range's total
	Id      int64
}

// ListRange is one key range a reader lists: the items of partition pk whose sort keys are
// prefix+pad(id), counted by attr of counter item (pk, counter).
type ListRange struct {
	PK, Prefix, Counter, Attr string
}

func (r ListRange) SK(id int64) string { return r.Prefix + Pad(id) }

// OwnerSlots places a location or calendar: home KIND#id (the admins' range) and, when not
// private, PUB#KIND#id (everyone else's range).
func OwnerSlots(kind string, cid, id int64, private bool) []Slot {
	pk := CampaignPK(cid)
	out := []Slot{{PK: pk, SK: RecordSK(kind, id), Home: true, Counter: CounterSK(kind), Attr: ClassAdmin, Id: id}}
	if !private {
		out = append(out, Slot{PK: pk, SK: PublicCopy + RecordSK(kind, id), Counter: CounterSK(kind), Attr: ClassPublic, Id: id})
	}
	return out
}

// ChildSlots places an entity note or event (kind NOTE or EVENT) of entity partition pk. The
// home is KIND#id (the admins' range), or SELF#KIND#id for a `self` record, which no shared
// range holds; the creator's own ranges hold copies.
func ChildSlots(kind, pk string, id, createdBy int64, v domain.Visibility, private bool) []Slot {
	if v == "" {
		v = domain.VisibilityAll
	}
	cnt := CounterSK(kind)
	own := OwnCounterSK(kind, createdBy)
	var out []Slot
	if v == domain.VisibilitySelf {
		out = append(out,
			Slot{PK: pk, SK: SelfHome + RecordSK(kind, id), Home: true, Id: id},
			Slot{PK: pk, SK: OwnPrefix(kind, createdBy, "A") + Pad(id), Counter: own, Attr: "A", Id: id})
	} else {
		out = append(out, Slot{PK: pk, SK: RecordSK(kind, id), Home: true, Counter: cnt, Attr: ClassAdmin, Id: id})
	}
	if private {
		return out
	}
	switch v {
	case domain.VisibilityAll:
		out = append(out,
			Slot{PK: pk, SK: MemberCopy + RecordSK(kind, id), Counter: cnt, Attr: ClassMember, Id: id},
			Slot{PK: pk, SK: PublicCopy + RecordSK(kind, id), Counter: cnt, Attr: ClassPublic, Id: id})
	case domain.VisibilityMember:
		out = append(out, Slot{PK: pk, SK: MemberCopy + RecordSK(kind, id), Counter: cnt, Attr: ClassMember, Id: id})
	case domain.VisibilitySelf, domain.VisibilitySelfAdmin:
		out = append(out, Slot{PK: pk, SK: OwnPrefix(kind, createdBy, "R") + Pad(id), Counter: own, Attr: "R", Id: id})
	}
	return out
}

type CounterKey struct{ PK, SK string }

// CopyItem is item under sl's keys; copies carry no secondary-index keys, so an index lists
// every record once. A public copy is the non-admins' projection (layout 3): when the item says
// its parent is private (ParentHidden, never stored), the copy has no parent_location_id.
func CopyItem(item dynamo.Item, sl Slot) dynamo.Item {
	out := make(dynamo.Item, len(item))
	for k, v := range item {
		out[k] = v
	}
	out["pk"] = &types.AttributeValueMemberS{Value: sl.PK}
	out["sk"] = &types.AttributeValueMemberS{Value: sl.SK}
	if !sl.Home {
		delete(out, "gsi1pk")
		delete(out, "gsi1sk")
	}
	if h, ok := out[ParentHidden].(*types.AttributeValueMemberBOOL); ok && h.Value && strings.HasPrefix(sl.SK, PublicCopy) {
		for _, k := range Kinds {
			if k.ParentAttr != "" {
				delete(out, k.ParentAttr)
			}
		}
	}
	if strings.HasPrefix(sl.SK, PublicCopy) {
		if h, ok := out[LocationHidden].(*types.AttributeValueMemberBOOL); ok && h.Value {
			delete(out, "location_id")
		}
		delete(out, LocationHidden)
	}
	delete(out, ParentHidden)
	if strings.HasPrefix(sl.SK, PublicCopy) {
		ProjectTags(out)
		ProjectRefs(out)
	}
	return out
}

// ParentHidden marks an item to place whose parent location is private: its public copy leaves
// the parent out (CopyItem). Set by the location writers and the migration; never stored.
const ParentHidden = "parent_hidden"

// LocationHidden marks a map whose location was private when it was written: its public copy
// leaves location_id out (CopyItem). Kept on the home, so every rewrite of the raw item (a
// parent's orphaning or adoption) places the copy alike.
const LocationHidden = "location_hidden"

func Marshal(v any) dynamo.Item {
	it, err := dynamo.MarshalItem(v)
	if err != nil {
		panic("store: marshal: " + err.Error()) // item types are fixed structs: a programming error
	}
	return it
}

// IsCopy reports whether sk is a list copy rather than a home (migration and scans skip them).
func IsCopy(sk string) bool {
	return strings.HasPrefix(sk, PublicCopy) || strings.HasPrefix(sk, MemberCopy) || strings.HasPrefix(sk, OwnCopy)
}

// CountedRange maps an item's sort key to the range counter that counts it (the inverse of the
// slots above): the migration recounts with it, and ops.Audit checks every counter with it.
func CountedRange(sk string) (counter, attr string, id int64, ok bool) {
	parts := strings.Split(sk, "#")
	last := len(parts) - 1
	if last < 1 {
		return "", "", 0, false
	}
	id, err := strconv.ParseInt(parts[last], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	kind := parts[last-1]
	switch {
	case last == 1:
		if k, ok := KindOf(kind); ok && k.Counted != "" {
			return CounterSK(kind), k.Counted, id, true
		}
	case last == 2 && parts[0]+"#" == PublicCopy:
		return CounterSK(kind), ClassPublic, id, true
	case last == 2 && parts[0]+"#" == MemberCopy:
		return CounterSK(kind), ClassMember, id, true
	case last == 4 && parts[0] == "OWN":
		uid, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return "", "", 0, false
		}
		return OwnCounterSK(kind, uid), parts[2], id, true
	}
	return "", "", 0, false
}

func AttrS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
