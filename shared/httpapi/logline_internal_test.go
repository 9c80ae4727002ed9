package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/telemetry"
)

var logPieces = []string{"", "plain", "/api/1.0/campaigns/{campaign_id}/locations", "<b>&amp;</b>", `"q"`, `b\s`,
	"\x00", "\x1f", "\t", "\n", "\r", "\x7f", "é", "日本", "😀", "\u2028", "\u2029", "\xff", "\xe2\x82", "\ufffd", " "}

func logText(rng *rand.Rand) string {
	var sb strings.Builder
	for k := rng.IntN(5); k > 0; k-- {
		sb.WriteString(logPieces[rng.IntN(len(logPieces))])
	}
	return sb.String()
}

func logFloat(rng *rand.Rand) float64 {
	fs := []float64{0, 0.5, 1, 3, 12.345, 1e-7, 2.5e-9, 1e20, 1e21, 4e300, float64(rng.IntN(1e7)) / 1000}
	return fs[rng.IntN(len(fs))]
}

// The request line written by hand is, byte for byte, what slog's JSON handler writes for the
// same record: random ids, routes, paths, statuses (errors logged on a 5xx), floats of every
// form, trace ids, times of any zone and precision.
func TestRequestLineIsSlogJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20, 7))
	zones := []*time.Location{time.UTC, time.FixedZone("far", 13*3600+45*60), time.FixedZone("west", -11*3600)}
	statuses := []int{200, 201, 204, 304, 404, 422, 429, 500, 503}
	for i := range 3000 {
		l := requestLine{id: logText(rng), method: logText(rng), route: logText(rng), path: logText(rng),
			status: statuses[rng.IntN(len(statuses))], durationMS: logFloat(rng),
			s: telemetry.Snapshot{UserID: rng.Int64N(1 << 40), CampaignID: rng.Int64N(1<<40) - 5, DBCalls: rng.IntN(300),
				ReadUnits: logFloat(rng), WriteUnits: logFloat(rng)},
			start: time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9))}
		if rng.IntN(2) == 0 {
			l.trace = logText(rng)
		}
		if rng.IntN(2) == 0 {
			l.s.Err = errors.New(logText(rng))
		}
		if rng.IntN(2) == 0 {
			l.s.DBErr = errors.New(logText(rng))
		}
		at := time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9)*int64(rng.IntN(2))).In(zones[rng.IntN(len(zones))])
		var want bytes.Buffer
		rec := slog.NewRecord(at, l.level(), "request", 0)
		rec.AddAttrs(l.attrs()...)
		if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		got, ok := l.appendJSON([]byte("x"), at)
		if !ok || string(got) != "x"+want.String() {
			t.Fatalf("line %d (%v):\nhand: %s\nslog: %s", i, ok, got, "x"+want.String())
		}
	}
	// NaN and infinities, which encoding/json refuses, are left to the JSON handler.
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		l := requestLine{status: 200, s: telemetry.Snapshot{ReadUnits: f}}
		if b, ok := l.appendJSON([]byte("x"), time.Now()); ok || string(b) != "x" {
			t.Errorf("%v: written by hand: %s", f, b)
		}
	}
}

// The API's log line through LogHandler is the one slog's JSON handler writes through
// Options.Logger, but for the time: for a request served, one not found, one failing, and under
// concurrent requests whole lines only.
func TestLogHandlerWritesTheJSONHandlersLine(t *testing.T) {
	t.Parallel()
	serve := func(h slog.Handler, path string) {
		a := New(Options{Logger: slog.New(h), Identify: func(*http.Request) (int64, error) { return 1, nil }})
		a.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	stamp := regexp.MustCompile(`"time":"[^"]*"|"duration_ms":[0-9.e+-]+|"Timestamp":[0-9]+|"request_id":"[^"]*"`)
	for _, path := range []string{"/api/1.0/campaigns/1/nothing", "/nowhere/<b>é\u2028", "/api/1.0/profile"} {
		var hand, slogs bytes.Buffer
		serve(NewLogHandler(&hand), path)
		serve(slog.NewJSONHandler(&slogs, nil), path)
		if got, want := stamp.ReplaceAllString(hand.String(), ""), stamp.ReplaceAllString(slogs.String(), ""); got != want || got == "" {
			t.Errorf("%s:\nhand: %s\nslog: %s", path, hand.String(), slogs.String())
		}
	}
	var out bytes.Buffer
	h := NewLogHandler(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				serve(h, "/api/1.0/campaigns/1/x"+strings.Repeat("y", g*300))
				slog.New(h).Info("other", "k", strings.Repeat("z", g*200))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, line := range lines {
		if !json.Valid([]byte(line)) {
			t.Fatalf("line not whole: %.200s", line)
		}
	}
}

// BenchmarkRequestLine is one request's log line: by hand (LogHandler) against slog's JSON
// handler (before), both written nowhere.
func BenchmarkRequestLine(b *testing.B) {
	l := requestLine{id: "45c86f70a139fdc7", method: "GET", route: "GET /api/1.0/campaigns/{campaign_id}/locations",
		path: "/api/1.0/campaigns/1/locations", status: 200, durationMS: 9.075, start: time.Now(),
		s: telemetry.Snapshot{UserID: 3, CampaignID: 1, DBCalls: 2, ReadUnits: 4.5}}
	ctx := context.Background()
	b.Run("hand", func(b *testing.B) {
		h := NewLogHandler(io.Discard)
		b.ReportAllocs()
		for b.Loop() {
			h.write(ctx, &l)
		}
	})
	b.Run("slog", func(b *testing.B) {
		logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
		b.ReportAllocs()
		for b.Loop() {
			logger.LogAttrs(ctx, l.level(), "request", l.attrs()...)
		}
	})
}
