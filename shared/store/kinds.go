package store

import "github.com/lorekeep/lorekeep/shared/domain"

// The kind table: every record kind the store keeps, one row each. Everything that used to list
// kinds by hand (owners, synced lists, counted ranges, the migration's and the audit's
// placement of homes, mentions' sources, ?deleted=1 lists) reads this table, so adding a kind is
// adding a row (plus its item type and its family's routes).

// placement says where a kind's home lives and how it is placed (homeSlots).
type placement int

const (
	placeNone     placement = iota // not a placed record (index copies, memberships)
	placeOwner                     // CAMPAIGN#c KIND#id, public copy unless private (ownerSlots)
	placeMapPoint                  // CAMPAIGN#c#LOCATION#lid KIND#id, admins' range only
	placeChild                     // CAMPAIGN#c#ENTITY#eid, placed by visibility (childSlots)
)

// kindSpec is one row of the kind table.
type kindSpec struct {
	prefix string // the KIND of its keys
	// entityType is an owner's entity type (also the name of its id sequence); "" otherwise.
	entityType string
	// owner: it owns an entity that mirrors its name and privacy, has name shards, is a
	// mention source and a search result (owners.go).
	owner bool
	// synced: its writes move a sync pointer, so a lastSync read uses the pointers (sync.go).
	synced bool
	// counted is the class that counts its home KIND#id in COUNT#KIND ("" when not counted that
	// way); its copies are counted by their own prefix (countedRange).
	counted   string
	placement placement
	// parent is the kind of the partition its homes live in (a child partition), "" for the
	// campaign's own partition.
	parent string
	// gone is the ?deleted=1 list of the kind (domain.Gone*), "" when deletions are not kept.
	gone string
	// parentAttr is a nested owner's parent attribute (nesting.go), parentField the body field
	// its errors name; "" for kinds that do not nest.
	parentAttr, parentField string
}

// tagParentAttr is a tag's parent tag, mapParentAttr a map's parent map.
const (
	tagParentAttr = "tag_id"
	mapParentAttr = "map_id"
)

// kinds is the kind table.
var kinds = []kindSpec{
	{prefix: locationPrefix, entityType: "location", owner: true, synced: true, counted: classAdmin, placement: placeOwner, gone: domain.GoneLocations,
		parentAttr: "parent_location_id", parentField: "parent_location_id"},
	{prefix: calendarPrefix, entityType: "calendar", owner: true, synced: true, counted: classAdmin, placement: placeOwner, gone: domain.GoneCalendars},
	{prefix: tagPrefix, entityType: "tag", owner: true, synced: true, counted: classAdmin, placement: placeOwner, gone: domain.GoneTags,
		parentAttr: tagParentAttr, parentField: tagParentAttr},
	{prefix: mapPrefix, entityType: "map", owner: true, synced: true, counted: classAdmin, placement: placeOwner, gone: domain.GoneMaps,
		parentAttr: mapParentAttr, parentField: mapParentAttr},
	{prefix: entityPrefix, synced: true, counted: classAdmin, gone: domain.GoneEntities}, // placed by its record (entitySlots)
	{prefix: mapPointPrefix, synced: true, counted: classAdmin, placement: placeMapPoint, parent: locationPrefix, gone: domain.GoneMapPoints},
	// a map's markers, in the map's partition; placed private (admins only) when their entity is
	{prefix: markerPrefix, synced: true, counted: classAdmin, placement: placeChild, parent: mapPrefix, gone: domain.GoneMarkers},
	{prefix: notePrefix, synced: true, counted: classAdmin, placement: placeChild, parent: entityPrefix, gone: domain.GoneNotes},
	{prefix: eventPrefix, synced: true, counted: classAdmin, placement: placeChild, parent: entityPrefix, gone: domain.GoneEvents},
	{prefix: weatherPrefix, synced: true, counted: classAdmin, placement: placeChild, parent: calendarPrefix, gone: domain.GoneWeather},
	{prefix: reminderKind, counted: classAdmin}, // an event's reminder link in its calendar
	// Relations (relations.go places them): synced in their owner's list and in the campaign-wide one.
	{prefix: relationPrefix, synced: true, counted: classAdmin, gone: domain.GoneRelations},
	{prefix: relationIndexPrefix, synced: true, counted: classAdmin, gone: domain.GoneCampaignRelations},
	{prefix: memberKind, counted: classAll}, // memberships (campaigns.go)
	{prefix: campaignKind, counted: classAll},
}

// kindOf is the row of the kind keyed prefix.
func kindOf(prefix string) (kindSpec, bool) {
	for _, k := range kinds {
		if k.prefix == prefix {
			return k, true
		}
	}
	return kindSpec{}, false
}

// mustKind is the row of a kind the code names (a missing row is a programming error).
func mustKind(prefix string) kindSpec {
	k, ok := kindOf(prefix)
	if !ok {
		panic("store: no kind " + prefix)
	}
	return k
}

// ownerKinds are the rows of the owner kinds, in table order.
var ownerKinds = func() []kindSpec {
	var out []kindSpec
	for _, k := range kinds {
		if k.owner {
			out = append(out, k)
		}
	}
	return out
}()

// ownerKindOf is the owner kind of an entity type.
func ownerKindOf(entityType string) (kindSpec, bool) {
	for _, k := range ownerKinds {
		if k.entityType == entityType {
			return k, true
		}
	}
	return kindSpec{}, false
}

// isOwnerPrefix reports whether prefix keys an owner kind.
func isOwnerPrefix(prefix string) bool {
	k, ok := kindOf(prefix)
	return ok && k.owner
}

// goneKind is the kind whose deletions the ?deleted=1 list named list answers.
func goneKind(list string) (kindSpec, bool) {
	for _, k := range kinds {
		if k.gone != "" && k.gone == list {
			return k, true
		}
	}
	return kindSpec{}, false
}

var (
	locationKind = mustKind(locationPrefix)
	calendarKind = mustKind(calendarPrefix)
	tagKind      = mustKind(tagPrefix)
	mapKind      = mustKind(mapPrefix)
)
