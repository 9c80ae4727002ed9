package store

import (
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// matchOwn applies to a stored item the filters a kind adds to the record lists' (its own
// text fields, attributes that must or must not hold a value, references), as list.go's
// conditions do, for the lastSync reads that filter the changed records in memory.
func matchOwn(f domain.Filter, it dynamo.Item) bool {
	if len(f.Fields) > 0 {
		var lc map[string]string
		_ = dynamo.Unmarshal(it[FieldsLC], &lc)
		for _, ft := range f.Fields {
			for _, t := range ft.Terms {
				if !t.Match(lc[ft.Field]) {
					return false
				}
			}
		}
	}
	for _, e := range f.Equal {
		if !sameValue(it[e.Attr], e.Value) {
			return false
		}
	}
	for _, d := range f.Differ {
		if it[d.Attr] != nil && sameValue(it[d.Attr], d.Value) {
			return false
		}
	}
	if len(f.Refs) > 0 {
		var keys []string
		_ = dynamo.Unmarshal(it[layout.RefKeysAttr], &keys)
		for _, rf := range f.Refs {
			if !slices.ContainsFunc(rf.IDs, func(id int64) bool {
				if rf.ByEntity {
					return slices.Contains(keys, layout.RefEntityKey(rf.Field, id))
				}
				return slices.Contains(keys, layout.RefKey(rf.Field, rf.Type, id))
			}) {
				return false
			}
		}
	}
	return true
}

// sameValue reports whether a stored attribute holds v (as a condition's `=` compares).
func sameValue(av types.AttributeValue, v any) bool {
	want, err := dynamo.Marshal(v)
	if err != nil || av == nil {
		return false
	}
	var a, b any
	if dynamo.Unmarshal(av, &a) != nil || dynamo.Unmarshal(want, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}
