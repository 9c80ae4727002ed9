package domain

// Module is one of Kanka's entity modules (entity types): its fixed id and code
// (config/entities.php) and its English names. An entity's Type is its module's code.
type Module struct {
	ID       int
	Code     string
	Singular string
	Plural   string
	// Nested: its records nest under a parent of the same module (locations do; Lorekeep's
	// calendars do not).
	Nested bool
}

// Modules are the modules Lorekeep serves, in Kanka's id order.
var Modules = []Module{
	{ID: 3, Code: "location", Singular: "Location", Plural: "Locations", Nested: true},
	{ID: 8, Code: "calendar", Singular: "Calendar", Plural: "Calendars"},
	{ID: 12, Code: "tag", Singular: "Tag", Plural: "Tags", Nested: true},
	{ID: 17, Code: "map", Singular: "Map", Plural: "Maps", Nested: true},
}

// ModuleOf is the module of an entity type ("location"), ok false for a type Lorekeep does not serve.
func ModuleOf(code string) (Module, bool) {
	for _, m := range Modules {
		if m.Code == code {
			return m, true
		}
	}
	return Module{}, false
}
