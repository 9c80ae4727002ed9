package racetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// TestFaultPendingDeleteIsSwept fails a DELETE's cascade after its first step (each round
// another DynamoDB call of the cascade: `make race-long` goes through all of them), which
// leaves the record gone and its delete pending. Then:
//   - the DELETE answered 200 (the delete happened: a 503 would say nothing was written);
//   - every write that depends on the record answers 404, or 422 naming it, never a 409
//     that no retry can turn into a success;
//   - the sweeper, racing a retried DELETE and those writes again, finishes the delete;
//   - the audit finds nothing half-removed, no pending delete and no sweeper marker left,
//     and every child is gone (child locations are roots).
func TestFaultPendingDeleteIsSwept(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	h := newHarness(t, families.Register, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	n := rounds(t)
	broken := 0
	for _, o := range faultOwners {
		t.Run(o.name, func(t *testing.T) {
			points := cascadeCalls(h.newRound(t), p, o.build)
			var failed []string
			statuses := map[int]int{}
			pending := 0
			for i := 0; i < n; i++ {
				rule := points[i%len(points)]
				r := h.newRound(t)
				problems, wasPending := r.sweptOutcome(p, rule, o.build(r), statuses)
				if wasPending {
					pending++
				}
				if len(problems) > 0 {
					failed = append(failed, fmt.Sprintf("round %d, %s call %d failing: %s", i, rule.Op, rule.Calls[0], strings.Join(problems, "; ")))
				}
			}
			if pending == 0 {
				t.Fatalf("no round left a delete pending (%d cascade calls to fail)", len(points))
			}
			summary := fmt.Sprintf("DELETE %s with its cascade failing, %d of %d rounds pending: %d left a broken state; dependent writes answered %s",
				o.name, pending, n, len(failed), histogram(statuses))
			verdict(t, summary, failed, &broken)
		})
	}
	staleGate(t, broken)
}

// cascadeCalls deletes a record without faults and lists, as fault rules, the DynamoDB calls
// of its cascade: every call after the first step's transaction (the read ahead is
// BatchGetItem 1, the first step TransactWriteItems 1). The first Query comes first: every
// cascade makes it.
func cascadeCalls(r *round, p *faultproxy.Proxy, build func(*round) owned) []faultproxy.Rule {
	rec := build(r)
	p.Reset()
	r.must("DELETE", r.path("%s", rec.path), nil)
	calls := p.CallsByOp()
	var points []faultproxy.Rule
	for op, count := range calls {
		first := 1
		if op == "BatchGetItem" || op == "TransactWriteItems" {
			first = 2
		}
		for n := first; n <= count; n++ {
			points = append(points, faultproxy.Rule{Op: op, Calls: []int{n}, Fault: faultproxy.InternalServerError})
		}
	}
	sort.Slice(points, func(i, j int) bool {
		a, b := points[i], points[j]
		if (a.Op == "Query") != (b.Op == "Query") {
			return a.Op == "Query"
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		return a.Calls[0] < b.Calls[0]
	})
	if len(points) == 0 || points[0].Op != "Query" {
		r.t.Fatalf("the delete's cascade made no Query: calls %v", calls)
	}
	return points
}

// sweptOutcome deletes rec with rule failing one call of its cascade and checks what follows;
// it reports whether the delete was left pending (the rule's call was made).
func (r *round) sweptOutcome(p *faultproxy.Proxy, rule faultproxy.Rule, rec owned, statuses map[int]int) ([]string, bool) {
	ctx := context.Background()
	var problems []string
	p.Reset()
	p.Inject(rule)
	first, err := r.h.send("DELETE", r.path("%s", rec.path), nil)
	hit := p.Faults(rule.Op) > 0
	p.Reset()
	if err != nil {
		r.t.Fatal(err)
	}
	if first.Status != 200 {
		problems = append(problems, fmt.Sprintf("DELETE answered %d %v once its first step was written", first.Status, first.Body))
	}
	if show, err := r.h.send("GET", r.path("%s", rec.path), nil); err != nil || show.Status != 404 {
		r.t.Fatalf("GET after the DELETE: %d %v", show.Status, err)
	}
	if hit {
		audit, err := ops.Audit(ctx, r.h.auditor, r.cid)
		if err != nil {
			r.t.Fatal(err)
		}
		// The record is in the trash; its reference cascade is what the fault left pending.
		if !slices.ContainsFunc(audit, func(s string) bool { return strings.HasSuffix(s, ": its reference cascade is pending") }) || len(audit) != 1 {
			problems = append(problems, fmt.Sprintf("not only a cascade pending (with its marker) after a failed cascade: audit %v", audit))
		}
		// Pending: every dependent write answers what it will answer for good.
		for _, d := range rec.writes {
			a, err := r.h.send(d.method, d.path, d.body)
			if err != nil {
				r.t.Fatal(err)
			}
			statuses[a.Status]++
			problems = append(problems, d.check(a)...)
		}
	}

	// The sweeper, a retried DELETE and the dependent writes at once.
	var wg sync.WaitGroup
	var swept store.SweepResult
	var sweepErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		swept, sweepErr = r.h.auditor.SweepDeletes(ctx, 0)
	}()
	reqs := []req{{"DELETE", r.path("%s", rec.path), nil}}
	for _, d := range rec.writes {
		reqs = append(reqs, d.req)
	}
	answers := r.race(reqs...)
	wg.Wait()
	if sweepErr != nil {
		problems = append(problems, fmt.Sprintf("sweep: %v (%+v)", sweepErr, swept))
	}
	if a := answers[0]; a.Status != 200 && a.Status != 404 {
		problems = append(problems, fmt.Sprintf("retried DELETE answered %d %v", a.Status, a.Body))
	}
	for i, d := range rec.writes {
		a := answers[i+1]
		statuses[a.Status]++
		problems = append(problems, d.check(a)...)
	}
	for _, err := range r.errs {
		r.t.Fatal(err)
	}

	// Finished: nothing half-removed, nothing pending, no marker, every child gone.
	audit, err := ops.Audit(ctx, r.h.auditor, r.cid)
	if err != nil {
		r.t.Fatal(err)
	}
	problems = append(problems, audit...)
	for name, state := range r.snapshot(rec) {
		want := "404"
		switch {
		case strings.HasPrefix(name, "child"):
			want = "parent null"
		case strings.HasPrefix(name, "events of another"):
			want = "total 0"
		}
		if state != want {
			problems = append(problems, fmt.Sprintf("after the sweep %s: %s, want %s", name, state, want))
		}
	}
	return problems, hit
}

// check compares a dependent write's answer with the status wanted (and, for a 422, the field
// it must name); a 409 is always wrong: nothing concurrent is left to wait for.
func (d dependent) check(a answer) []string {
	what := fmt.Sprintf("%s %s", d.method, d.path)
	want := d.status
	if d.orGone && a.Status == 404 {
		want = 404
	}
	if a.Status != want {
		return []string{fmt.Sprintf("%s answered %d %v (Retry-After %q), want %d", what, a.Status, a.Body, a.Header.Get("Retry-After"), want)}
	}
	if want == 422 {
		if errs, _ := a.Body["errors"].(map[string]any); errs[d.field] == nil {
			return []string{fmt.Sprintf("%s answered 422 %v, want it to name %s", what, a.Body, d.field)}
		}
	}
	return nil
}
