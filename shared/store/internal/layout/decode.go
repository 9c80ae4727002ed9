package layout

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// attrs reads the attributes of one item.
type Attrs struct {
	Item dynamo.Item
	Bad  bool
}

func (a *Attrs) Str(name string) string {
	switch v := a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	}
	a.Bad = true
	return ""
}

func (a *Attrs) Int(name string) int64 {
	switch v := a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return 0
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		a.Bad = a.Bad || err != nil
		return n
	}
	a.Bad = true
	return 0
}

func (a *Attrs) OptInt(name string) *int64 {
	switch a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	}
	n := a.Int(name)
	return &n
}

func (a *Attrs) Boolean(name string) bool {
	switch v := a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return false
	case *types.AttributeValueMemberBOOL:
		return v.Value
	}
	a.Bad = true
	return false
}

// ints reads a list or a number set of integers: nil when absent, empty when empty.
func (a *Attrs) Ints(name string) []int64 {
	var out []int64
	switch v := a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberL:
		out = make([]int64, 0, len(v.Value))
		for _, e := range v.Value {
			n, ok := e.(*types.AttributeValueMemberN)
			if !ok {
				a.Bad = true
				return nil
			}
			x, err := strconv.ParseInt(n.Value, 10, 64)
			a.Bad = a.Bad || err != nil
			out = append(out, x)
		}
	case *types.AttributeValueMemberNS:
		out = make([]int64, 0, len(v.Value))
		for _, s := range v.Value {
			x, err := strconv.ParseInt(s, 10, 64)
			a.Bad = a.Bad || err != nil
			out = append(out, x)
		}
	default:
		a.Bad = true
	}
	return out
}

// refs reads an item's references (rare, and small: by reflection); strs a string set.
func (a *Attrs) refs(name string) []RefAttr {
	v, ok := a.Item[name]
	if !ok {
		return nil
	}
	var out []RefAttr
	if err := dynamo.Unmarshal(v, &out); err != nil {
		a.Bad = true
	}
	return out
}

func (a *Attrs) strs(name string) []string {
	switch v := a.Item[name].(type) {
	case nil, *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberSS:
		return v.Value
	default:
		var out []string
		if err := dynamo.Unmarshal(v, &out); err != nil {
			a.Bad = true
		}
		return out
	}
}

func (m *MetaAttrs) Read(a *Attrs) {
	*m = MetaAttrs{PK: a.Str("pk"), SK: a.Str("sk"), ID: a.Int("id"), CampaignID: a.Int("campaign_id"),
		CreatedAt: a.Str("created_at"), UpdatedAt: a.Str("updated_at"), CreatedBy: a.Int("created_by"),
		UpdatedBy: a.Int("updated_by"), Version: a.Int("version")}
}

func (o *OwnerAttrs) Read(a *Attrs) {
	*o = OwnerAttrs{EntityID: a.Int("entity_id"), Name: a.Str("name"), NameLC: a.Str("name_lc"), Entry: a.Str("entry"),
		Type: a.Str("type"), TypeLC: a.Str("type_lc"), ImageURL: a.Str("image_url"), IsPrivate: a.Boolean("is_private"),
		Tags: a.Ints("tags"), PrivateTags: a.Ints("private_tags"), ImagePath: a.Str("image_path"),
		EntityImageUUID: a.Str("entity_image_uuid"), EntityHeaderUUID: a.Str("entity_header_uuid"),
		Refs: a.refs("refs"), RefKeys: a.strs(RefKeysAttr)}
}

// DecodeBy runs read, which answers whether it met an unexpected type (attrs.bad); then the
// item is decoded by reflection into fallback (the same struct as a type without this decoder).
// read takes the attrs by value: a pointer handed to a func value would move them to the heap,
// one allocation per item.
func DecodeBy(item dynamo.Item, read func(Attrs) bool, fallback any) error {
	if read(Attrs{Item: item}) {
		return dynamo.UnmarshalItem(item, fallback)
	}
	return nil
}

type ReflectedEntity EntityItem

// decode decodes an entity item by hand.
func (it *EntityItem) Decode(item dynamo.Item) error {
	return DecodeBy(item, func(a Attrs) bool {
		*it = EntityItem{PK: a.Str("pk"), SK: a.Str("sk"), ID: a.Int("id"), CampaignID: a.Int("campaign_id"),
			Type: a.Str("type"), ChildID: a.Int("child_id"), Name: a.Str("name"), IsPrivate: a.Boolean("is_private"),
			LinksPrivate: a.Boolean("links_private"), NameLC: a.Str("name_lc"), Tags: a.Ints("tags"),
			PrivateTags: a.Ints("private_tags"), ImageURL: a.Str("image_url"), ImagePath: a.Str("image_path"), CreatedAt: a.Str("created_at"), UpdatedAt: a.Str("updated_at"),
			CreatedBy: a.Int("created_by"), UpdatedBy: a.Int("updated_by")}
		return a.Bad
	}, (*ReflectedEntity)(it))
}

type ReflectedMember MemberItem

// decode decodes a membership item by hand (every request's access read has one).
func (it *MemberItem) Decode(item dynamo.Item) error {
	return DecodeBy(item, func(a Attrs) bool {
		*it = MemberItem{PK: a.Str("pk"), SK: a.Str("sk"), CampaignID: a.Int("campaign_id"), UserID: a.Int("user_id"),
			Role: a.Str("role"), Name: a.Str("name"), CreatedAt: a.Str("created_at"), UpdatedAt: a.Str("updated_at")}
		return a.Bad
	}, (*ReflectedMember)(it))
}

type ReflectedDayLink DayLinkItem

// Decode decodes a calendar's day or recurring link by hand (a day view reads its window's).
func (it *DayLinkItem) Decode(item dynamo.Item) error {
	return DecodeBy(item, func(a Attrs) bool {
		*it = DayLinkItem{PK: a.Str("pk"), SK: a.Str("sk"), ID: a.Int("id"), EntityID: a.Int("entity_id"),
			CampaignID: a.Int("campaign_id"), CalendarID: a.Int("calendar_id"), Name: a.Str("name"), Year: a.Int("year"),
			Month: int(a.Int("month")), Day: int(a.Int("day")), Length: int(a.Int("length")),
			Periodicity: a.Str("recurring_periodicity"), RecurringUntil: a.OptInt("recurring_until"),
			Recurrence: a.Str("recurrence"), Hour: intPtr(a.OptInt("hour")), Minute: intPtr(a.OptInt("minute")),
			Colour: a.Str("colour"), IsPrivate: a.Boolean("is_private"), Visibility: a.Str("visibility"),
			CreatedBy: a.Int("created_by"), Version: a.Int("version"), EntityPrivate: a.Boolean("entity_private")}
		return a.Bad
	}, (*ReflectedDayLink)(it))
}

func intPtr(n *int64) *int {
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}
