package spec

import "github.com/lorekeep/lorekeep/shared/domain"

// Kanka's modules served as declarations (docs/KANKA-MODULES.md 4: their ids, codes, fields and
// the 2025 API's parent fields; 2.5: the default category statuses, whose ids are Kanka's seed
// order). The fields are the module's own beyond the entity base every module shares.
var (
	Characters = declare(Spec{
		Module: domain.Module{ID: 1, Code: "character", Singular: "Character", Plural: "Characters"},
		Prefix: "CHARACTER", Path: "/characters", Gone: "character",
		Refs: []Ref{{Name: "races", Target: "race", Legacy: "race_id", Private: true}, {Name: "families", Target: "family", Legacy: "family_id", Private: true, Reverse: "members"}, {Name: "locations", Target: "location", Legacy: "location_id"},
			{Name: "organisations", Target: "organisation", Membership: true}},
		Fields: []Field{{Name: "title", Kind: Text, Max: 191}, {Name: "age", Kind: Text, Max: 25}, {Name: "sex", Kind: Text, Max: 45},
			{Name: "pronouns", Kind: Text, Max: 45}, {Name: "is_personality_visible", Kind: Flag},
			{Name: "is_personality_pinned", Kind: Flag}, {Name: "is_appearance_pinned", Kind: Flag}},
		Statuses: []Status{{ID: 1, Key: "alive", Default: true}, {ID: 2, Key: "missing"}, {ID: 3, Key: "dead", Legacy: "is_dead"}},
		Traits:   true,
	})
	Families = declare(Spec{
		Module: domain.Module{ID: 2, Code: "family", Singular: "Family", Plural: "Families", Nested: true},
		Prefix: "FAMILY", Path: "/families", Gone: "family", LegacyParent: "family_id",
		Refs:     []Ref{{Name: "locations", Target: "location", Legacy: "location_id"}},
		Statuses: []Status{{ID: 12, Key: "extinct", Legacy: "is_extinct"}},
	})
	Organisations = declare(Spec{
		Module: domain.Module{ID: 4, Code: "organisation", Singular: "Organisation", Plural: "Organisations", Nested: true},
		Prefix: "ORGANISATION", Path: "/organisations", Gone: "organisation", LegacyParent: "organisation_id",
		Refs:     []Ref{{Name: "locations", Target: "location", Legacy: "location_id"}},
		Statuses: []Status{{ID: 13, Key: "defunct", Legacy: "is_defunct"}},
	})
	Items = declare(Spec{
		Module: domain.Module{ID: 5, Code: "item", Singular: "Item", Plural: "Items", Nested: true},
		Prefix: "ITEM", Path: "/items", Gone: "item", LegacyParent: "item_id",
		Refs:     []Ref{{Name: "creators", Legacy: "character_id", LegacyTarget: "character"}, {Name: "location_id", Target: "location", One: true}},
		Fields:   []Field{{Name: "price", Kind: Text, Max: 191}, {Name: "size", Kind: Text, Max: 191}, {Name: "weight", Kind: Text, Max: 191}},
		Statuses: []Status{{ID: 14, Key: "owned"}, {ID: 15, Key: "lost"}, {ID: 16, Key: "destroyed"}},
	})
	Notes = declare(Spec{
		Module: domain.Module{ID: 6, Code: "note", Singular: "Note", Plural: "Notes", Nested: true},
		Prefix: "NOTEMODULE", Path: "/notes", Gone: "note_module", LegacyParent: "note_id",
	})
	Events = declare(Spec{
		Module: domain.Module{ID: 7, Code: "event", Singular: "Event", Plural: "Events", Nested: true},
		Prefix: "EVENTMODULE", Path: "/events", Gone: "event_module", LegacyParent: "event_id",
		Refs:   []Ref{{Name: "locations", Target: "location", Legacy: "location_id"}},
		Fields: []Field{{Name: "date", Kind: Text, Max: 191}},
	})
	Races = declare(Spec{
		Module: domain.Module{ID: 9, Code: "race", Singular: "Race", Plural: "Races", Nested: true},
		Prefix: "RACE", Path: "/races", Gone: "race", LegacyParent: "race_id",
		Refs:     []Ref{{Name: "locations", Target: "location"}},
		Statuses: []Status{{ID: 7, Key: "extinct", Legacy: "is_extinct"}},
	})
	Journals = declare(Spec{
		Module: domain.Module{ID: 11, Code: "journal", Singular: "Journal", Plural: "Journals", Nested: true},
		Prefix: "JOURNAL", Path: "/journals", Gone: "journal", LegacyParent: "journal_id",
		Refs:   []Ref{{Name: "author_id", One: true}, {Name: "locations", Target: "location", Legacy: "location_id"}},
		Fields: []Field{{Name: "date", Kind: Date}},
	})
	Quests = declare(Spec{
		Module: domain.Module{ID: 10, Code: "quest", Singular: "Quest", Plural: "Quests", Nested: true},
		Prefix: "QUEST", Path: "/quests", Gone: "quest", LegacyParent: "quest_id",
		Refs:   []Ref{{Name: "instigator_id", One: true}, {Name: "locations", Target: "location", Legacy: "location_id"}},
		Fields: []Field{{Name: "date", Kind: Date}},
		Statuses: []Status{{ID: 8, Key: "not_started", Default: true}, {ID: 9, Key: "ongoing"},
			{ID: 10, Key: "completed", Legacy: "is_completed"}, {ID: 11, Key: "abandoned"}},
	})
	Abilities = declare(Spec{
		Module: domain.Module{ID: 16, Code: "ability", Singular: "Ability", Plural: "Abilities", Nested: true},
		Prefix: "ABILITY", Path: "/abilities", Gone: "ability", LegacyParent: "ability_id",
		Fields: []Field{{Name: "charges", Kind: Text, Max: 120}},
	})
	Timelines = declare(Spec{
		Module: domain.Module{ID: 18, Code: "timeline", Singular: "Timeline", Plural: "Timelines", Nested: true},
		Prefix: "TIMELINE", Path: "/timelines", Gone: "timeline", LegacyParent: "timeline_id",
		Fields: []Field{{Name: "revert_order", Kind: Flag}},
	})
	Creatures = declare(Spec{
		Module: domain.Module{ID: 20, Code: "creature", Singular: "Creature", Plural: "Creatures", Nested: true},
		Prefix: "CREATURE", Path: "/creatures", Gone: "creature", LegacyParent: "creature_id",
		Refs:     []Ref{{Name: "locations", Target: "location"}},
		Statuses: []Status{{ID: 4, Key: "dead", Legacy: "is_dead"}, {ID: 5, Key: "extinct", Legacy: "is_extinct"}},
	})
)
