package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/testing/decodetest"
)

// Each hand decoder of the kernel's item types answers what guregu's reflective decoder answers.
func TestHandDecodersMatchReflection(t *testing.T) {
	decodetest.MatchesReflection(t, unmarshalItem,
		decodetest.Case{Name: "entity", Hand: func() any { return new(layout.EntityItem) }, Reflected: func() any { return new(layout.ReflectedEntity) }},
		decodetest.Case{Name: "campaign", Hand: func() any { return new(CampaignItem) }, Reflected: func() any { return new(reflectedCampaign) }},
		decodetest.Case{Name: "member", Hand: func() any { return new(layout.MemberItem) }, Reflected: func() any { return new(layout.ReflectedMember) }},
		decodetest.Case{Name: "day link", Hand: func() any { return new(layout.DayLinkItem) }, Reflected: func() any { return new(layout.ReflectedDayLink) }},
	)
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
