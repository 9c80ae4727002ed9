package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every schema is inferred from the tools' Go types with these overrides, so that none holds
// the schema `true` (what `any` would give): a record (json.RawMessage) is an object, a field
// value of a write (any) is any JSON value spelt as its types. The TypeScript SDK's listTools
// rejects a tool whose schema has `true` as a property.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "A record as the REST API answers it (GET of its route)."},
	reflect.TypeFor[any]():             {Types: []string{"string", "number", "integer", "boolean", "object", "array", "null"}},
}

// schemaFor is T's schema, with enums set on the named properties.
func schemaFor[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	for name, vals := range enums {
		p := s.Properties[name]
		if p == nil {
			panic("mcp: no property " + name)
		}
		p.Enum = vals
	}
	return s
}
