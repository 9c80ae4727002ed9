// Package decodetest checks a hand-written item decoder against guregu/dynamo's reflective
// one, for the kernel's item types and the families' alike.
package decodetest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// Case is one item type: hand makes a new *T whose decoding decode does by hand, reflected a
// new value of the same struct under a type without the decoder.
type Case struct {
	Name            string
	Hand, Reflected func() any
}

// MatchesReflection checks that decode answers what reflection answers for each case: for an
// item with every field set, with empty lists and absent attributes, with tags as a number set,
// and (through the decoder's fallback) for an attribute of an unexpected type.
func MatchesReflection(t *testing.T, decode func(dynamo.Item, any) error, cases ...Case) {
	t.Helper()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	for _, c := range cases {
		full := c.Reflected()
		n := 0
		fill(t, reflect.ValueOf(full).Elem(), &n)
		item, err := dynamo.MarshalItem(full)
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string]dynamo.Item{"every field": item, "absent": {"pk": s("P"), "sk": s("S")}}
		empty := dynamo.Item{}
		for k, v := range item {
			empty[k] = v
		}
		if _, ok := item["tags"]; ok {
			empty["tags"] = &types.AttributeValueMemberL{}
			set := dynamo.Item{}
			for k, v := range item {
				set[k] = v
			}
			set["tags"] = &types.AttributeValueMemberNS{Value: []string{"4", "5"}}
			variants["tags as a set"] = set
		}
		variants["empty lists"] = empty
		wrong := dynamo.Item{}
		for k, v := range item {
			wrong[k] = v
		}
		wrong["id"] = s("not a number")
		variants["unexpected type"] = wrong
		for name, it := range variants {
			t.Run(c.Name+"/"+name, func(t *testing.T) {
				hand, refl := c.Hand(), c.Reflected()
				herr, rerr := decode(it, hand), dynamo.UnmarshalItem(it, refl)
				if (herr != nil) != (rerr != nil) {
					t.Fatalf("errors differ: hand %v, reflection %v", herr, rerr)
				}
				got := reflect.ValueOf(hand).Elem().Interface()
				want := reflect.ValueOf(refl).Elem().Convert(reflect.TypeOf(got)).Interface()
				if herr == nil && !reflect.DeepEqual(got, want) {
					t.Errorf("hand decoder:\n %+v\nreflection:\n %+v", got, want)
				}
			})
		}
	}
}

// fill sets every field of the struct v points to (embedded ones included) to a value of its
// own that is not the zero value, so a decoder that forgets a field is seen.
func fill(t *testing.T, v reflect.Value, n *int) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		*n++
		switch f.Kind() {
		case reflect.Struct:
			fill(t, f, n)
		case reflect.String:
			f.SetString(fmt.Sprint("s", *n))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(*n))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			x := reflect.New(f.Type().Elem())
			x.Elem().SetInt(int64(*n))
			f.Set(x)
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.ValueOf(fmt.Sprint("k", *n)), reflect.ValueOf(fmt.Sprint("v", *n)).Convert(f.Type().Elem()))
			f.Set(m)
		case reflect.Slice:
			switch f.Type().Elem().Kind() {
			case reflect.Struct: // one element, every field set
				e := reflect.New(f.Type().Elem()).Elem()
				fill(t, e, n)
				f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), e))
			case reflect.String:
				f.Set(reflect.ValueOf([]string{fmt.Sprint("s", *n), fmt.Sprint("s", *n+1)}).Convert(f.Type()))
			default:
				f.Set(reflect.ValueOf([]int64{int64(*n), int64(*n + 1)}).Convert(f.Type()))
			}
		default:
			t.Fatalf("fill: field %s of kind %s: teach fill and the decoders", v.Type().Field(i).Name, f.Kind())
		}
	}
}
