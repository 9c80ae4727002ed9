package store

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// Hand-written decoders for the items every request decodes (the campaign and the caller's
// membership) or decodes by the page (owner records, entities, notes): guregu's reflective decoder walks the struct's fields on every item, which
// was the largest share of a list page's own allocations (issue 20). Each decoder reads every
// attribute its struct declares, exactly as guregu would (TestHandDecodersMatchReflection
// checks each against guregu on items with every field set, empty and absent). An attribute
// of a type the struct does not expect sets bad, and the item is decoded by reflection
// instead, so a surprise in stored data is never a silent zero.
//
// They are not guregu's ItemUnmarshaler: a method would be promoted to every struct that embeds
// the item (a trashed entity embeds entityItem) and decode only the embedded part. unmarshalItem
// picks them by the exact type instead, on the read paths that decode by the page.

// unmarshalItem decodes item into out: by hand for the types above, by reflection otherwise.
func unmarshalItem(item dynamo.Item, out any) error {
	switch v := out.(type) {
	case *locationItem:
		return v.decode(item)
	case *tagItem:
		return v.decode(item)
	case *entityItem:
		return v.decode(item)
	case *noteItem:
		return v.decode(item)
	case *campaignItem:
		return v.decode(item)
	case *memberItem:
		return v.decode(item)
	case *dayLinkItem:
		return v.decode(item)
	}
	return dynamo.UnmarshalItem(item, out)
}

// attrs reads the attributes of one item.
type attrs struct {
	item dynamo.Item
	bad  bool
}

func (a *attrs) str(name string) string {
	switch v := a.item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	}
	a.bad = true
	return ""
}

func (a *attrs) int(name string) int64 {
	switch v := a.item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return 0
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		a.bad = a.bad || err != nil
		return n
	}
	a.bad = true
	return 0
}

func (a *attrs) optInt(name string) *int64 {
	switch a.item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	}
	n := a.int(name)
	return &n
}

func (a *attrs) boolean(name string) bool {
	switch v := a.item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return false
	case *types.AttributeValueMemberBOOL:
		return v.Value
	}
	a.bad = true
	return false
}

// ints reads a list or a number set of integers: nil when absent, empty when empty.
func (a *attrs) ints(name string) []int64 {
	var out []int64
	switch v := a.item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberL:
		out = make([]int64, 0, len(v.Value))
		for _, e := range v.Value {
			n, ok := e.(*types.AttributeValueMemberN)
			if !ok {
				a.bad = true
				return nil
			}
			x, err := strconv.ParseInt(n.Value, 10, 64)
			a.bad = a.bad || err != nil
			out = append(out, x)
		}
	case *types.AttributeValueMemberNS:
		out = make([]int64, 0, len(v.Value))
		for _, s := range v.Value {
			x, err := strconv.ParseInt(s, 10, 64)
			a.bad = a.bad || err != nil
			out = append(out, x)
		}
	default:
		a.bad = true
	}
	return out
}

func (m *metaAttrs) read(a *attrs) {
	*m = metaAttrs{PK: a.str("pk"), SK: a.str("sk"), ID: a.int("id"), CampaignID: a.int("campaign_id"),
		CreatedAt: a.str("created_at"), UpdatedAt: a.str("updated_at"), CreatedBy: a.int("created_by"),
		UpdatedBy: a.int("updated_by"), Version: a.int("version")}
}

func (o *ownerAttrs) read(a *attrs) {
	*o = ownerAttrs{EntityID: a.int("entity_id"), Name: a.str("name"), NameLC: a.str("name_lc"), Entry: a.str("entry"),
		Type: a.str("type"), TypeLC: a.str("type_lc"), ImageURL: a.str("image_url"), IsPrivate: a.boolean("is_private"),
		Tags: a.ints("tags"), PrivateTags: a.ints("private_tags"), ImagePath: a.str("image_path"),
		EntityImageUUID: a.str("entity_image_uuid"), EntityHeaderUUID: a.str("entity_header_uuid")}
}

// decodeBy runs read, which answers whether it met an unexpected type (attrs.bad); then the
// item is decoded by reflection into fallback (the same struct as a type without this decoder).
// read takes the attrs by value: a pointer handed to a func value would move them to the heap,
// one allocation per item.
func decodeBy(item dynamo.Item, read func(attrs) bool, fallback any) error {
	if read(attrs{item: item}) {
		return dynamo.UnmarshalItem(item, fallback)
	}
	return nil
}

type reflectedLocation locationItem

// decode decodes a location item by hand.
func (it *locationItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		it.metaAttrs.read(&a)
		it.ownerAttrs.read(&a)
		it.ParentID, it.MapURL = a.optInt("parent_location_id"), a.str("map_url")
		it.IsMapPrivate, it.ParentHidden = a.boolean("is_map_private"), a.boolean("parent_hidden")
		return a.bad
	}, (*reflectedLocation)(it))
}

type reflectedTag tagItem

// decode decodes a tag item by hand.
func (it *tagItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		it.metaAttrs.read(&a)
		it.ownerAttrs.read(&a)
		it.ParentID, it.Colour = a.optInt("tag_id"), a.str("colour")
		it.IsAutoApplied, it.IsHidden, it.ParentHidden = a.boolean("is_auto_applied"), a.boolean("is_hidden"), a.boolean("parent_hidden")
		return a.bad
	}, (*reflectedTag)(it))
}

type reflectedEntity entityItem

// decode decodes an entity item by hand.
func (it *entityItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		*it = entityItem{PK: a.str("pk"), SK: a.str("sk"), ID: a.int("id"), CampaignID: a.int("campaign_id"),
			Type: a.str("type"), ChildID: a.int("child_id"), Name: a.str("name"), IsPrivate: a.boolean("is_private"),
			LinksPrivate: a.boolean("links_private"), NameLC: a.str("name_lc"), Tags: a.ints("tags"),
			PrivateTags: a.ints("private_tags"), ImageURL: a.str("image_url"), ImagePath: a.str("image_path"), CreatedAt: a.str("created_at"), UpdatedAt: a.str("updated_at"),
			CreatedBy: a.int("created_by"), UpdatedBy: a.int("updated_by")}
		return a.bad
	}, (*reflectedEntity)(it))
}

type reflectedNote noteItem

// decode decodes a note item by hand.
func (it *noteItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		it.metaAttrs.read(&a)
		it.EntityID, it.Name, it.NameLC, it.Entry = a.int("entity_id"), a.str("name"), a.str("name_lc"), a.str("entry")
		it.Position, it.Visibility, it.Collapsed = a.optInt("position"), a.str("visibility"), a.boolean("collapsed")
		return a.bad
	}, (*reflectedNote)(it))
}

type reflectedCampaign campaignItem

// decode decodes a campaign item by hand (every request's access read has one).
func (it *campaignItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		*it = campaignItem{PK: a.str("pk"), SK: a.str("sk"), ID: a.int("id"), Name: a.str("name"),
			IsPublic: a.boolean("is_public"), Boost: a.str("boost"), OwnerID: a.int("owner_id"), Locale: a.str("locale"),
			Entry: a.str("entry"), ImageURL: a.str("image_url"), CreatedAt: a.str("created_at"),
			UpdatedAt: a.str("updated_at"), Version: a.int("version")}
		return a.bad
	}, (*reflectedCampaign)(it))
}

type reflectedMember memberItem

// decode decodes a membership item by hand (every request's access read has one).
func (it *memberItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		*it = memberItem{PK: a.str("pk"), SK: a.str("sk"), CampaignID: a.int("campaign_id"), UserID: a.int("user_id"),
			Role: a.str("role"), Name: a.str("name"), CreatedAt: a.str("created_at"), UpdatedAt: a.str("updated_at")}
		return a.bad
	}, (*reflectedMember)(it))
}

type reflectedDayLink dayLinkItem

// decode decodes a calendar's day or recurring link by hand (a day view reads its window's).
func (it *dayLinkItem) decode(item dynamo.Item) error {
	return decodeBy(item, func(a attrs) bool {
		*it = dayLinkItem{PK: a.str("pk"), SK: a.str("sk"), ID: a.int("id"), EntityID: a.int("entity_id"),
			CampaignID: a.int("campaign_id"), CalendarID: a.int("calendar_id"), Name: a.str("name"), Year: a.int("year"),
			Month: int(a.int("month")), Day: int(a.int("day")), Length: int(a.int("length")),
			Periodicity: a.str("recurring_periodicity"), RecurringUntil: a.optInt("recurring_until"),
			Recurrence: a.str("recurrence"), Hour: intPtr(a.optInt("hour")), Minute: intPtr(a.optInt("minute")),
			Colour: a.str("colour"), IsPrivate: a.boolean("is_private"), Visibility: a.str("visibility"),
			CreatedBy: a.int("created_by"), Version: a.int("version"), EntityPrivate: a.boolean("entity_private")}
		return a.bad
	}, (*reflectedDayLink)(it))
}

func intPtr(n *int64) *int {
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}

// queryAll reads every item q answers, each decoded by unmarshalItem (by hand for the types
// that have a decoder; guregu/dynamo's All decodes by reflection).
func queryAll[I any](ctx context.Context, q *dynamo.Query) ([]I, error) {
	var out []I
	it := q.Iter()
	var item dynamo.Item
	for it.Next(ctx, &item) {
		var v I
		if err := unmarshalItem(item, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, it.Err()
}
