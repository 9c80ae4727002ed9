package layout

import "github.com/lorekeep/lorekeep/shared/domain"

// placement says where a kind's home lives and how it is placed (homeSlots).
type Placement int

const (
	PlaceNone     Placement = iota // not a placed record (index copies, memberships)
	PlaceOwner                     // CAMPAIGN#c KIND#id, public copy unless private (OwnerSlots)
	PlaceMapPoint                  // CAMPAIGN#c#LOCATION#lid KIND#id, admins' range only
	PlaceChild                     // CAMPAIGN#c#ENTITY#eid, placed by visibility (ChildSlots)
)

// KindSpec is one row of the kind table.
type KindSpec struct {
	Prefix string // the KIND of its keys
	// entityType is an owner's entity type (also the name of its id sequence); "" otherwise.
	EntityType string
	// owner: it owns an entity that mirrors its name and privacy, has name shards, is a
	// mention source and a search result (owners.go).
	Owner bool
	// synced: its writes move a sync pointer, so a lastSync read uses the pointers (sync.go).
	Synced bool
	// counted is the class that counts its home KIND#id in COUNT#KIND ("" when not counted that
	// way); its copies are counted by their own prefix (CountedRange).
	Counted   string
	Placement Placement
	// parent is the kind of the partition its homes live in (a child partition), "" for the
	// campaign's own partition.
	Parent string
	// gone is the ?deleted=1 list of the kind (domain.Gone*), "" when deletions are not kept.
	Gone string
	// parentAttr is a nested owner's parent attribute (nesting.go), parentField the body field
	// its errors name; "" for kinds that do not nest.
	ParentAttr, ParentField string
	// Event names the kind's records in the changes the stream announces (webhooks), "" for a
	// kind whose writes announce nothing.
	Event string
}

// TagParentAttr is a tag's parent tag, MapParentAttr a map's parent map.
const (
	TagParentAttr = "tag_id"
	MapParentAttr = "map_id"
)

// kinds is the kind table.
var Kinds = []KindSpec{
	{Prefix: LocationPrefix, EntityType: "location", Event: "location", Owner: true, Synced: true, Counted: ClassAdmin, Placement: PlaceOwner, Gone: domain.GoneLocations,
		ParentAttr: "parent_location_id", ParentField: "parent_location_id"},
	{Prefix: CalendarPrefix, EntityType: "calendar", Event: "calendar", Owner: true, Synced: true, Counted: ClassAdmin, Placement: PlaceOwner, Gone: domain.GoneCalendars},
	{Prefix: TagPrefix, EntityType: "tag", Event: "tag", Owner: true, Synced: true, Counted: ClassAdmin, Placement: PlaceOwner, Gone: domain.GoneTags,
		ParentAttr: TagParentAttr, ParentField: TagParentAttr},
	{Prefix: MapPrefix, EntityType: "map", Event: "map", Owner: true, Synced: true, Counted: ClassAdmin, Placement: PlaceOwner, Gone: domain.GoneMaps,
		ParentAttr: MapParentAttr, ParentField: MapParentAttr},
	{Prefix: EntityPrefix, Synced: true, Counted: ClassAdmin, Gone: domain.GoneEntities}, // placed by its record (EntitySlots)
	{Prefix: MapPointPrefix, Event: "map_point", Synced: true, Counted: ClassAdmin, Placement: PlaceMapPoint, Parent: LocationPrefix, Gone: domain.GoneMapPoints},
	// a map's markers, in the map's partition; placed private (admins only) when their entity is
	{Prefix: MarkerPrefix, Event: "map_marker", Synced: true, Counted: ClassAdmin, Placement: PlaceChild, Parent: MapPrefix, Gone: domain.GoneMarkers},
	{Prefix: NotePrefix, Event: "entity_note", Synced: true, Counted: ClassAdmin, Placement: PlaceChild, Parent: EntityPrefix, Gone: domain.GoneNotes},
	{Prefix: EventPrefix, Event: "entity_event", Synced: true, Counted: ClassAdmin, Placement: PlaceChild, Parent: EntityPrefix, Gone: domain.GoneEvents},
	{Prefix: WeatherPrefix, Event: "calendar_weather", Synced: true, Counted: ClassAdmin, Placement: PlaceChild, Parent: CalendarPrefix, Gone: domain.GoneWeather},
	{Prefix: ReminderKind, Counted: ClassAdmin}, // an event's reminder link in its calendar
	// Relations (relations.go places them): synced in their owner's list and in the campaign-wide one.
	{Prefix: RelationPrefix, Event: "relation", Parent: EntityPrefix, Synced: true, Counted: ClassAdmin, Gone: domain.GoneRelations},
	{Prefix: RelationIndexPrefix, Synced: true, Counted: ClassAdmin, Gone: domain.GoneCampaignRelations},
	{Prefix: MemberKind, Counted: ClassAll}, // memberships (campaigns.go)
	{Prefix: CampaignKind, Counted: ClassAll},
}

// KindOf is the row of the kind keyed prefix.
func KindOf(prefix string) (KindSpec, bool) {
	for _, k := range Kinds {
		if k.Prefix == prefix {
			return k, true
		}
	}
	return KindSpec{}, false
}

// MustKind is the row of a kind the code names (a missing row is a programming error).
func MustKind(prefix string) KindSpec {
	k, ok := KindOf(prefix)
	if !ok {
		panic("store: no kind " + prefix)
	}
	return k
}

// OwnerKinds are the rows of the owner kinds, in table order.
var OwnerKinds = ownerKinds()

func ownerKinds() []KindSpec {
	var out []KindSpec
	for _, k := range Kinds {
		if k.Owner {
			out = append(out, k)
		}
	}
	return out
}

// RegisterOwnerKind adds the row of an owner kind that a family declares (store.DeclareOwnerKind),
// at init: every mechanism that walks the kind table (entities, copies, counters, names,
// mentions, sync, trash, the audit) then serves it. The kinds the kernel's own code names
// (locations, calendars, tags, maps) are rows of Kinds above.
func RegisterOwnerKind(k KindSpec) KindSpec {
	if k.Prefix == "" || k.EntityType == "" || !k.Owner {
		panic("store: an owner kind needs a prefix and an entity type")
	}
	if _, dup := KindOf(k.Prefix); dup {
		panic("store: kind " + k.Prefix + " declared twice")
	}
	if _, dup := OwnerKindOf(k.EntityType); dup {
		panic("store: entity type " + k.EntityType + " declared twice")
	}
	if _, dup := FamilyKindOf(k.Prefix); dup {
		panic("store: kind " + k.Prefix + " declared twice")
	}
	Kinds = append(Kinds, k)
	OwnerKinds = ownerKinds()
	return k
}

// OwnerKindOf is the owner kind of an entity type.
func OwnerKindOf(entityType string) (KindSpec, bool) {
	for _, k := range OwnerKinds {
		if k.EntityType == entityType {
			return k, true
		}
	}
	return KindSpec{}, false
}

// IsOwnerPrefix reports whether prefix keys an owner kind.
func IsOwnerPrefix(prefix string) bool {
	k, ok := KindOf(prefix)
	return ok && k.Owner
}

// GoneKind is the kind whose deletions the ?deleted=1 list named list answers.
func GoneKind(list string) (KindSpec, bool) {
	for _, k := range Kinds {
		if k.Gone != "" && k.Gone == list {
			return k, true
		}
	}
	return KindSpec{}, false
}

var (
	LocationKind = MustKind(LocationPrefix)
	CalendarKind = MustKind(CalendarPrefix)
	TagKind      = MustKind(TagPrefix)
	MapKind      = MustKind(MapPrefix)
)

// FamilyKind is a kind whose family stores its records itself (store.DeclareKind): the
// kernel's cross-kind mechanisms do not manage it, but the audit knows its items.
type FamilyKind struct {
	Prefix string // the KIND of its keys: CAMPAIGN#c KIND#id
	// LimitCount: COUNT#KIND ("n") counts the campaign's records against a limit.
	LimitCount bool
	// Partition: a record keeps items in its own partition (CAMPAIGN#c#KIND#id), which lives
	// as long as the record.
	Partition bool
}

var familyKinds = map[string]FamilyKind{}

// RegisterFamilyKind adds k (at init: the families' declarations).
func RegisterFamilyKind(k FamilyKind) {
	if _, dup := familyKinds[k.Prefix]; dup || IsOwnerPrefix(k.Prefix) {
		panic("store: kind " + k.Prefix + " declared twice")
	}
	familyKinds[k.Prefix] = k
}

// FamilyKindOf is the declaration of the family kind keyed prefix.
func FamilyKindOf(prefix string) (FamilyKind, bool) {
	k, ok := familyKinds[prefix]
	return k, ok
}
