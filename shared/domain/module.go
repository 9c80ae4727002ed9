package domain

import "slices"

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

// RegisterModule adds a module a family declares (at init, with its kind: the kernel's
// store.DeclareOwnerKind), in Kanka's id order, to Modules and EntityTypes.
func RegisterModule(m Module) {
	for _, o := range Modules {
		if o.ID == m.ID || o.Code == m.Code {
			panic("domain: module " + m.Code + " declared twice")
		}
	}
	Modules = append(Modules, m)
	slices.SortFunc(Modules, func(a, b Module) int { return a.ID - b.ID })
	EntityTypes = moduleCodes()
}

func moduleCodes() []string {
	out := make([]string, len(Modules))
	for i, m := range Modules {
		out[i] = m.Code
	}
	return out
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
