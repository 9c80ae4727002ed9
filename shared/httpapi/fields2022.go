package httpapi

// The 2022 API's field set (token.Fields2022), by route: what the 2022 API answered of each
// record, and nothing added since (entry_parsed and the gallery uuids on locations and
// calendars, an event's name, day, month and colour, a note's visibility_id, the calendar
// engine's fields, ...). The spec's field tables are the five resources it covers
// (spec/worldbuilding-api.md: locations, map points, calendars, entity events, entity notes,
// with Lorekeep's answer to what it leaves "not shown": a map point's id and location_id), as
// far as Kanka's recorded 2022 answers have them too: a location's `location_id` is in the
// spec's table but in none of them (firelilith/pykanka's recorded traffic, March 2022), and a
// client modelled on them refuses it. Kanka's 2022 resources, as docs/design/round3.md read
// them, are the rest (entities, attributes, relations and ?related=1's arrays). Routes the 2022 API did not have (posts, reminders,
// maps, tags, webhooks...) and Lorekeep's own rows (a ?deleted=1 page's tombstones) answer in
// full: a 2022 client does not call them. DESIGN.md 9 ("Field sets").

var audit2022 = []string{"created_at", "created_by", "updated_at", "updated_by"}

func fields2022(keys ...string) []string { return append(keys, audit2022...) }

var (
	event2022 = NewShape(fields2022("id", "entity_id", "calendar_id", "comment", "date", "year", "length", "is_recurring",
		"recurring_periodicity", "recurring_until", "type_id", "is_private", "visibility"), nil)
	note2022 = NewShape(fields2022("id", "entity_id", "name", "entry", "entry_parsed", "position", "visibility",
		"settings"), nil)
	attribute2022 = NewShape(fields2022("id", "entity_id", "name", "value", "parsed", "type", "default_order",
		"is_private", "is_star", "api_key"), nil)
	relation2022 = NewShape(fields2022("id", "owner_id", "target_id", "relation", "attitude", "colour", "visibility",
		"is_star"), nil)
	// related2022 are ?related=1's arrays under their 2022 names (the posts as entity_notes);
	// inventory and abilities are kept whole (always empty).
	related2022 = map[string]*Shape{"attributes": attribute2022, "entity_notes": note2022, "entity_events": event2022,
		"relations": relation2022, "inventory": nil, "entity_abilities": nil}
	location2022 = NewShape(fields2022("id", "name", "entry", "image", "image_full", "image_thumb", "has_custom_image",
		"is_private", "parent_location_id", "entity_id", "tags", "map", "is_map_private", "type"), related2022)
	mapPoint2022 = NewShape([]string{"id", "location_id", "target_entity_id", "name", "axis_x", "axis_y", "colour",
		"size", "icon", "shape", "created_at", "updated_at"}, nil)
	calendar2022 = NewShape(fields2022("id", "name", "entry", "image", "image_full", "image_thumb", "has_custom_image",
		"is_private", "entity_id", "tags", "type", "date", "parameters", "start_offset", "weekdays", "years", "suffix",
		"has_leap_year", "leap_year_amount", "leap_year_month", "leap_year_offset", "leap_year_start"),
		merged(related2022, map[string]*Shape{
			"months":  NewShape([]string{"name", "length", "type"}, nil),
			"seasons": NewShape([]string{"name", "month", "day"}, nil),
			"moons":   NewShape([]string{"name", "fullmoon", "offset", "colour"}, nil),
		}))
	entity2022 = NewShape(fields2022("id", "name", "type", "child_id", "tags", "is_private", "campaign_id",
		"is_attributes_private", "is_template", "tooltip", "header_image", "image_uuid", "child"), related2022)
)

func merged(a, b map[string]*Shape) map[string]*Shape {
	out := make(map[string]*Shape, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Fields2022 is the shape of each 2022 route's records, by the route's path pattern (every
// method but DELETE).
var Fields2022 = map[string]*Shape{
	Prefix + "/locations":                               location2022,
	Prefix + "/locations/{id}":                          location2022,
	Prefix + "/locations/{id}/map_points":               mapPoint2022,
	Prefix + "/locations/{id}/map_points/{point_id}":    mapPoint2022,
	Prefix + "/calendars":                               calendar2022,
	Prefix + "/calendars/{id}":                          calendar2022,
	Prefix + "/entities/{entity_id}/entity_events":      event2022,
	Prefix + "/entities/{entity_id}/entity_events/{id}": event2022,
	Prefix + "/entities/{entity_id}/entity_notes":       note2022,
	Prefix + "/entities/{entity_id}/entity_notes/{id}":  note2022,
	Prefix + "/entities":                                entity2022,
	Prefix + "/entities/{entity_id}":                    entity2022,
	Prefix + "/entities/{entity_id}/attributes":         attribute2022,
	Prefix + "/entities/{entity_id}/attributes/{id}":    attribute2022,
	Prefix + "/entities/{entity_id}/relations":          relation2022,
	Prefix + "/entities/{entity_id}/relations/{id}":     relation2022,
}
