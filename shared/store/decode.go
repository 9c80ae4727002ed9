package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
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
// the item (a trashed entity embeds layout.EntityItem) and decode only the embedded part. unmarshalItem
// picks the kernel's by the exact type instead, on the read paths that decode by the page, and
// a family's item type by its DecodeItem method (HandDecoded): no struct embeds a family's item.

// HandDecoded is a family's item type with a hand-written decoder (DecodeBy), which the
// kernel's page reads use instead of reflection.
type HandDecoded interface{ DecodeItem(dynamo.Item) error }

// Attrs reads an item's attributes for a hand-written decoder.
type Attrs = layout.Attrs

// DecodeBy runs read over item's attributes; read answers whether it met an unexpected type,
// and the item is then decoded by reflection into fallback (the same struct as a type without
// the decoder), so a surprise in stored data is never a silent zero.
func DecodeBy(item dynamo.Item, read func(Attrs) bool, fallback any) error {
	return layout.DecodeBy(item, read, fallback)
}

// UnmarshalItem decodes item into out: by hand for the kernel's types and HandDecoded ones, by
// reflection otherwise.
func UnmarshalItem(item dynamo.Item, out any) error { return unmarshalItem(item, out) }

// unmarshalItem decodes item into out: by hand for the types above, by reflection otherwise.
func unmarshalItem(item dynamo.Item, out any) error {
	switch v := out.(type) {
	case *layout.EntityItem:
		return v.Decode(item)
	case *CampaignItem:
		return v.decode(item)
	case *layout.MemberItem:
		return v.Decode(item)
	case *layout.DayLinkItem:
		return v.Decode(item)
	case HandDecoded:
		return v.DecodeItem(item)
	}
	return dynamo.UnmarshalItem(item, out)
}

type reflectedCampaign CampaignItem

// decode decodes a campaign item by hand (every request's access read has one).
func (it *CampaignItem) decode(item dynamo.Item) error {
	return layout.DecodeBy(item, func(a layout.Attrs) bool {
		*it = CampaignItem{PK: a.Str("pk"), SK: a.Str("sk"), ID: a.Int("id"), Name: a.Str("name"),
			IsPublic: a.Boolean("is_public"), Boost: a.Str("boost"), OwnerID: a.Int("owner_id"), Locale: a.Str("locale"),
			Entry: a.Str("entry"), ImageURL: a.Str("image_url"), CreatedAt: a.Str("created_at"),
			UpdatedAt: a.Str("updated_at"), Version: a.Int("version")}
		return a.Bad
	}, (*reflectedCampaign)(it))
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
