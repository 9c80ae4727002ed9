package racetest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// callLog keeps the DynamoDB calls of each request, by request id, from the request log.
type callLog struct {
	mu    sync.Mutex
	calls map[string]int64
}

func (c *callLog) Enabled(context.Context, slog.Level) bool { return true }
func (c *callLog) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *callLog) WithGroup(string) slog.Handler            { return c }
func (c *callLog) Handle(_ context.Context, r slog.Record) error {
	var id string
	var n int64
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "request_id":
			id = a.Value.String()
		case "dynamodb_calls":
			n = a.Value.Int64()
		}
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[id] = n
	return nil
}

func (c *callLog) of(id string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

// TestContendedAdvances races 50 advances of one calendar under the production deadline: every
// answer is a 200 (the date moved) or a 409 with Retry-After (nothing written), and the date
// moved by exactly the number of 200s. A 503 is contention answered as an outage, unless the
// request never reached its write (two DynamoDB calls at most: the access read and the
// calendar's), which only a machine too loaded for the deadline causes.
func TestContendedAdvances(t *testing.T) {
	t.Parallel()
	logs := &callLog{calls: map[string]int64{}}
	h := newHarnessWith(t, families.Register, apitest.WithAPI(func(o *httpapi.Options) {
		o.Timeout, o.Logger = httpapi.DefaultTimeout, slog.New(logs)
	}))
	n := rounds(t)
	broken := 0
	var failed []string
	statuses := map[int]int{}
	for i := 0; i < n; i++ {
		r := h.newRound(t)
		cal, _ := r.calendar("Reckoning") // two months of 30 days, on 1-1-1
		reqs := make([]req, 50)
		for j := range reqs {
			reqs[j] = req{"POST", r.path("/calendars/%d/advance", cal), map[string]any{"days": 1}}
		}
		moved := 0
		for _, a := range r.race(reqs...) {
			statuses[a.Status]++
			switch {
			case a.Status == 200:
				moved++
			case a.Status == 409 && a.Header.Get("Retry-After") != "":
			case a.Status == 503 && logs.of(a.Header.Get("X-Request-Id")) <= 2:
			default:
				r.checks = append(r.checks, fmt.Sprintf("an advance answered %d %v (Retry-After %q) after %d DynamoDB calls", a.Status, a.Body,
					a.Header.Get("Retry-After"), logs.of(a.Header.Get("X-Request-Id"))))
			}
		}
		for _, err := range r.errs {
			t.Errorf("round %d: %v", i, err)
		}
		want := fmt.Sprintf("1-%d-%d", moved/30+1, moved%30+1)
		if got := r.must("GET", r.path("/calendars/%d", cal), nil).data()["date"]; got != want {
			r.checks = append(r.checks, fmt.Sprintf("%d advances answered 200 but the date is %v, want %s", moved, got, want))
		}
		if len(r.checks) > 0 {
			failed = append(failed, fmt.Sprintf("round %d: %s", i, strings.Join(r.checks, "; ")))
		}
	}
	summary := fmt.Sprintf("50 advances of one calendar at once, production deadline: wrong in %d of %d rounds; answers %s", len(failed), n, histogram(statuses))
	verdict(t, summary, failed, &broken)
	staleGate(t, broken)
}

// lostWrite is one write whose DynamoDB answer goes missing, and how to tell from the stored
// state that it happened exactly once.
type lostWrite struct {
	name string
	// run sets up records, arms the fault, sends the write and returns a check of the stored
	// state after it.
	run func(r *round, arm func()) (answer, func() []string)
}

var lostWrites = []lostWrite{
	{"advance", func(r *round, arm func()) (answer, func() []string) {
		cal, _ := r.calendar("Reckoning")
		arm()
		a, _ := r.h.send("POST", r.path("/calendars/%d/advance", cal), map[string]any{"days": 1})
		return a, func() []string { return r.want(fmt.Sprintf("/calendars/%d", cal), "date", "1-1-2") }
	}},
	{"update", func(r *round, arm func()) (answer, func() []string) {
		l, _ := r.location(map[string]any{"name": "Old"})
		arm()
		a, _ := r.h.send("PATCH", r.path("/locations/%d", l), map[string]any{"name": "New"})
		return a, func() []string { return r.want(fmt.Sprintf("/locations/%d", l), "name", "New") }
	}},
	{"create", func(r *round, arm func()) (answer, func() []string) {
		arm()
		a, _ := r.h.send("POST", r.path("/locations"), map[string]any{"name": "Once"})
		return a, func() []string { return r.wantTotal("/locations", 1) }
	}},
	{"import", func(r *round, arm func()) (answer, func() []string) {
		arm()
		a, _ := r.h.send("POST", r.path("/calendars/import"), map[string]any{"name": "Imported", "static_data": map[string]any{
			"year_data": map[string]any{"first_day": 1, "global_week": []any{"A", "B"},
				"timespans": []any{map[string]any{"name": "M1", "length": 10}, map[string]any{"name": "M2", "length": 10}}}},
			"dynamic_data": map[string]any{"year": 1, "timespan": 0, "day": 1}})
		return a, func() []string { return r.wantTotal("/calendars", 1) }
	}},
	{"calendar weather", func(r *round, arm func()) (answer, func() []string) {
		cal, _ := r.calendar("Skies")
		arm()
		a, _ := r.h.send("POST", r.path("/calendars/%d/calendar_weather", cal), map[string]any{"weather": "Rain", "year": 1, "month": 1, "day": 3})
		return a, func() []string { return r.wantTotal(fmt.Sprintf("/calendars/%d/calendar_weather", cal), 1) }
	}},
	{"delete", func(r *round, arm func()) (answer, func() []string) {
		_, eid := r.location(map[string]any{"name": "Host"})
		n := r.must("POST", r.path("/entities/%d/entity_notes", eid), map[string]any{"name": "Note"}).id()
		arm()
		a, _ := r.h.send("DELETE", r.path("/entities/%d/entity_notes/%d", eid, n), nil)
		return a, func() []string { return r.wantTotal(fmt.Sprintf("/entities/%d/entity_notes", eid), 0) }
	}},
}

// want checks one field of the record at path.
func (r *round) want(path, field string, want any) []string {
	got := r.must("GET", r.path("%s", path), nil).data()[field]
	if got != want {
		return []string{fmt.Sprintf("%s %s is %v, want %v", path, field, got, want)}
	}
	return nil
}

// wantTotal checks the number of records the list at path holds.
func (r *round) wantTotal(path string, want int) []string {
	got := r.must("GET", r.path("%s", path), nil).Body["meta"].(map[string]any)["total"]
	if got != float64(want) {
		return []string{fmt.Sprintf("%s holds %v records, want %d", path, got, want)}
	}
	return nil
}

// TestLostWriteAnswers loses the answer of a TransactWriteItems that DynamoDB committed (the
// connection is reset, or the answer comes after the request's deadline): the client must be
// told the truth, a 200 for the write that happened, which happened once; never a 503 (which
// says nothing was written) nor a second write.
func TestLostWriteAnswers(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	const deadline = 2 * time.Second
	h := newHarnessWith(t, families.Register, apitest.WithSDK(p.Attach), apitest.WithAPI(func(o *httpapi.Options) { o.Timeout = deadline }))
	broken := 0
	for _, fault := range []struct {
		name  string
		calls []int // of TransactWriteItems, from the write on
		fault faultproxy.Fault
	}{
		// The SDK re-sends a transaction whose answer it lost with the same ClientRequestToken.
		{"answer lost", []int{1}, faultproxy.AnswerLost},
		// ... as often as its retry policy allows: the write must still learn its outcome.
		{"answer lost to every SDK attempt", []int{1, 2, 3}, faultproxy.AnswerLost},
		{"answer after the deadline", []int{1}, faultproxy.AnswerLate(deadline + 400*time.Millisecond)},
	} {
		t.Run(fault.name, func(t *testing.T) {
			var failed []string
			for _, w := range lostWrites {
				var r *round
				var a answer
				var check func() []string
				var faults int
				// A machine too loaded to send the write before the deadline answers a true
				// 503 (nothing sent): that is not the case under test, so it is run again.
				for try := 0; try < 3 && (try == 0 || (faults == 0 && a.Status == 503)); try++ {
					r = h.newRound(t)
					a, check = w.run(r, func() {
						p.Reset()
						p.Inject(faultproxy.Rule{Op: "TransactWriteItems", Calls: fault.calls, Fault: fault.fault})
					})
					faults = p.Faults("TransactWriteItems")
					p.Reset()
				}
				var problems []string
				if faults != len(fault.calls) {
					problems = append(problems, fmt.Sprintf("the fault struck %d times, want %d", faults, len(fault.calls)))
				}
				if a.Status != 200 {
					problems = append(problems, fmt.Sprintf("answered %d %v", a.Status, a.Body))
				}
				problems = append(problems, check()...)
				audit, err := ops.Audit(context.Background(), h.auditor, r.cid)
				if err != nil {
					t.Fatal(err)
				}
				if problems = append(problems, audit...); len(problems) > 0 {
					failed = append(failed, fmt.Sprintf("%s: %s", w.name, strings.Join(problems, "; ")))
				}
			}
			summary := fmt.Sprintf("%s of a committed write: %d of %d writes answered wrong", fault.name, len(failed), len(lostWrites))
			verdict(t, summary, failed, &broken)
		})
	}
	staleGate(t, broken)
}
