package apitest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// AppendJSONMatches checks a row shape's hand encoder (httpapi.JSONAppender, with a value
// receiver) against encoding/json as writeJSON configures it, over n random values of T:
// strings of HTML, mentions, quotes, backslashes, control characters, invalid UTF-8, U+2028,
// astral characters and nothing; ints from 0 to the extremes; nil and set pointers; nil,
// empty and filled slices; times of any zone. The hand encoder must write the same bytes
// after a prefix it keeps, or decline (ok false) and leave b alone; it must encode most values
// (a shape that declines everything tests nothing).
func AppendJSONMatches[T httpapi.JSONAppender](t *testing.T, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(20, uint64(n)))
	handled := 0
	for i := 0; i < n; i++ {
		var v T
		randomFill(rng, reflect.ValueOf(&v).Elem(), 0)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, ok := v.AppendJSON([]byte("prefix"))
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("value %d: declined but wrote %q", i, got)
			}
			continue
		}
		handled++
		if w := "prefix" + strings.TrimSuffix(want.String(), "\n"); string(got) != w {
			t.Fatalf("value %d (%+v):\nhand:          %s\nencoding/json: %s", i, v, got, w)
		}
	}
	// A row with ?related=1 arrays (a pointer, set in two values of three) is declined: a third
	// of the values, give or take, are encoded by hand.
	if handled < n/4 {
		t.Fatalf("only %d of %d values encoded by hand", handled, n)
	}
}

var textPieces = []string{"", "plain", "<b>bold</b>", "&amp;", "<script>alert(1)</script>", "[location:12]",
	"[entity:3|Name]", `"quoted"`, `back\slash`, "\x00", "\x01", "\x1f", "\t", "\n", "\r", "\b", "\f", "\x7f",
	"é", "日本語", "😀", "\u2028", "\u2029", "\xff", "\xe2\x82", "\xed\xa0\x80", "\ufffd", "'", "/", " "}

var timeZones = []*time.Location{time.UTC, time.FixedZone("far", 13*3600+45*60), time.FixedZone("west", -11*3600)}

// randomFill sets v (and what it holds) to random values; pointers, slices and any are
// sometimes nil.
func randomFill(rng *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[domain.Time]() {
		sec := rng.Int64N(1<<35) - 1<<33 // years about 1700 to 2240
		t := time.Unix(sec, rng.Int64N(1e9)).In(timeZones[rng.IntN(len(timeZones))])
		v.Set(reflect.ValueOf(domain.Time(t)))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				randomFill(rng, v.Field(i), depth)
			}
		}
	case reflect.String:
		var sb strings.Builder
		for k := rng.IntN(6); k > 0; k-- {
			sb.WriteString(textPieces[rng.IntN(len(textPieces))])
		}
		v.SetString(sb.String())
	case reflect.Int, reflect.Int64, reflect.Int32:
		ints := []int64{0, 1, -1, rng.Int64N(1000), rng.Int64(), -rng.Int64(), math.MaxInt32, domain.MaxID}
		x := ints[rng.IntN(len(ints))]
		if v.OverflowInt(x) {
			x = int64(int32(x))
		}
		v.SetInt(x)
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Float64:
		floats := []float64{0, math.Copysign(0, -1), 0.5, 0.1234, 1e-7, 1.5e-9, 1e20, 1e21, 3e300, 5e-324, -2.5e-8,
			float64(rng.IntN(20000)-10000) / float64(1+rng.IntN(1000))}
		v.SetFloat(floats[rng.IntN(len(floats))])
	case reflect.Pointer:
		if rng.IntN(3) == 0 || depth > 3 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		randomFill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch rng.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			if depth > 3 {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
				return
			}
			s := reflect.MakeSlice(v.Type(), 1+rng.IntN(4), 4)
			for i := 0; i < s.Len(); i++ {
				randomFill(rng, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Interface: // any: a string or a number, or nil
		switch rng.IntN(3) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.ValueOf(textPieces[rng.IntN(len(textPieces))]))
		default:
			v.Set(reflect.ValueOf(rng.Int64N(1000)))
		}
	case reflect.Map:
		v.SetZero()
	default:
		panic("randomFill: teach it " + v.Kind().String())
	}
}
