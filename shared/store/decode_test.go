package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

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
		case reflect.Slice:
			f.Set(reflect.ValueOf([]int64{int64(*n), int64(*n + 1)}).Convert(f.Type()))
		default:
			t.Fatalf("fill: field %s of kind %s: teach fill and the decoders", v.Type().Field(i).Name, f.Kind())
		}
	}
}

// Each hand decoder answers what guregu's reflective decoder answers: for an item with every
// field set, with empty lists and absent attributes, with tags as a number set, and (through
// its fallback) for an attribute of an unexpected type.
func TestHandDecodersMatchReflection(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	for _, c := range []struct {
		name      string
		hand      func() any // a new *T with the hand decoder
		reflected func() any // the same struct, decoded by reflection
	}{
		{"location", func() any { return new(locationItem) }, func() any { return new(reflectedLocation) }},
		{"tag", func() any { return new(tagItem) }, func() any { return new(reflectedTag) }},
		{"entity", func() any { return new(layout.EntityItem) }, func() any { return new(layout.ReflectedEntity) }},
		{"note", func() any { return new(noteItem) }, func() any { return new(reflectedNote) }},
		{"campaign", func() any { return new(campaignItem) }, func() any { return new(reflectedCampaign) }},
		{"member", func() any { return new(layout.MemberItem) }, func() any { return new(layout.ReflectedMember) }},
		{"day link", func() any { return new(layout.DayLinkItem) }, func() any { return new(layout.ReflectedDayLink) }},
	} {
		full := c.reflected()
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
			t.Run(c.name+"/"+name, func(t *testing.T) {
				hand, refl := c.hand(), c.reflected()
				herr, rerr := unmarshalItem(it, hand), dynamo.UnmarshalItem(it, refl)
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

// A struct that embeds a hand-decoded item is decoded whole, its own fields included (a
// decoder method would be promoted to it and decode only the embedded part).
func TestItemsEmbeddingAHandDecodedOneDecodeWhole(t *testing.T) {
	want := layout.TrashedEntity{EntityItem: layout.EntityItem{ID: 7, Name: "Gone", Tags: []int64{1}}, DeletedAt: "2026-01-01T00:00:00.000000Z", DeletedBy: 3, TTL: 99}
	item, err := dynamo.MarshalItem(want)
	if err != nil {
		t.Fatal(err)
	}
	var got layout.TrashedEntity
	if err := unmarshalItem(item, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v (%v), want %+v", got, err, want)
	}
}

// layout.ParseStamp reads what time.Parse reads for the store's layout, and declines the rest (which
// layout.ParseTime then hands to time.Parse).
func TestParseStampIsTimeParse(t *testing.T) {
	cases := []string{"2026-11-25T09:25:07.123456Z", "0000-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z",
		"2024-02-29T12:00:00.000000Z", "2023-02-29T12:00:00.000000Z", "2026-04-31T00:00:00.000000Z", "2026-13-01T00:00:00.000000Z",
		"2026-00-10T00:00:00.000000Z", "2026-01-00T00:00:00.000000Z", "2026-01-01T24:00:00.000000Z", "2026-01-01T00:60:00.000000Z",
		"2026-01-01T00:00:60.000000Z", "2026-01-01T00:00:00.00000Z", "2026-01-01 00:00:00.000000Z", "2026-01-01T00:00:00.000000",
		"2026-01-01T00:00:00.00000aZ", "+026-01-01T00:00:00.000000Z", "", "garbage"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := []byte("2026-11-25T09:25:07.123456Z")
		for k := rng.IntN(3); k >= 0; k-- {
			b[rng.IntN(len(b))] = "0123456789-:.TZ x"[rng.IntN(17)]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := time.Parse(layout.Timestamp, s)
		got, ok := layout.ParseStamp(s)
		if ok && (err != nil || !got.Equal(want) || got.Location() != want.Location()) {
			t.Fatalf("%q: parseStamp %v, time.Parse %v (%v)", s, got, want, err)
		}
		if !ok && err == nil && len(s) == len(layout.Timestamp) && s[19] == '.' {
			t.Errorf("%q: declined a timestamp time.Parse reads", s)
		}
		if p := layout.ParseTime(s); !p.Equal(want) && err == nil {
			t.Fatalf("%q: parseTime %v, want %v", s, p, want)
		}
	}
}

// A page's cursors, spelled in one string, are each row's domain.EncodeCursor.
func TestRowCursorsAreEncodeCursor(t *testing.T) {
	tests := []struct {
		name string
		ids  []int64
	}{
		{"none", nil},
		{"one", []int64{1}},
		{"growing digits", []int64{9, 10, 99, 100, 12345, 999999}},
		{"largest", []int64{domain.MaxID - 1, domain.MaxID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := make([]row, len(tt.ids))
			for i, id := range tt.ids {
				rows[i].id = id
			}
			got := rowCursors(rows)
			if got == nil || len(got) != len(tt.ids) {
				t.Fatalf("cursors %q for %d rows", got, len(tt.ids))
			}
			for i, id := range tt.ids {
				if want := domain.EncodeCursor(id); got[i] != want {
					t.Errorf("row %d (id %d): cursor %q, want %q", i, id, got[i], want)
				}
				if back, ok := domain.DecodeCursor(got[i]); !ok || back != id {
					t.Errorf("row %d: cursor %q decodes to %d %v", i, got[i], back, ok)
				}
			}
		})
	}
}

// layout.Pad spells ids as fmt's %012d does, for every length of id and the extremes.
func TestPadIsSprintf(t *testing.T) {
	ids := []int64{0, 1, 9, 10, 99999999999, 999999999999, 1000000000000, domain.MaxID, math.MaxInt64, -1, -12345, math.MinInt64}
	for d, n := 0, int64(1); d < 19; d, n = d+1, n*10 {
		ids = append(ids, n-1, n, n+1, n*7/3)
	}
	for _, id := range ids {
		if got, want := layout.Pad(id), fmt.Sprintf("%012d", id); got != want {
			t.Errorf("pad(%d) = %q, want %q", id, got, want)
		}
	}
}
