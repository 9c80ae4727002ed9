package racetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// owned is an owner record with something of every kind hanging from it.
type owned struct {
	path     string            // the record's path, relative to the campaign
	children map[string]string // what hangs from it: name -> path relative to the campaign
	writes   []dependent       // writes that depend on the record
}

// dependent is a write that depends on an owner: what it must answer once the owner's delete
// has begun (and while it is pending).
type dependent struct {
	req
	status int    // 200, 404, or 422 naming field
	field  string // the field a 422 names
	orGone bool   // or 404: the record is one the cascade removes
}

// snapshot is what an admin reads of every child: status and what the child's answer says.
func (r *round) snapshot(o owned) map[string]string {
	out := map[string]string{}
	for name, p := range o.children {
		a, err := r.h.send("GET", r.path("%s", p), nil)
		if err != nil {
			r.t.Fatal(err)
		}
		switch {
		case a.Status != 200:
			out[name] = fmt.Sprint(a.Status)
		case a.Body["meta"] != nil:
			out[name] = fmt.Sprintf("total %v", a.Body["meta"].(map[string]any)["total"])
		default:
			out[name] = fmt.Sprintf("parent %v", jsonOf(a.data()["parent_location_id"]))
		}
	}
	return out
}

// faultOwners build the records whose delete is failed part-way.
var faultOwners = []struct {
	name  string
	build func(r *round) owned
}{
	{"location", func(r *round) owned {
		cal, _ := r.calendar("Reckoning")
		l, eid := r.location(map[string]any{"name": "Doomed"})
		child, _ := r.location(map[string]any{"name": "Child", "parent_location_id": l})
		var point, note, ev int64
		for i := 0; i < 2; i++ {
			point = r.must("POST", r.path("/locations/%d/map_points", l), mapPoint()).id()
			note = r.must("POST", r.path("/entities/%d/entity_notes", eid), map[string]any{"name": "Note"}).id()
			ev = r.must("POST", r.path("/entities/%d/entity_events", eid), event(cal)).id()
		}
		return owned{path: fmt.Sprintf("/locations/%d", l), children: map[string]string{
			"child location": fmt.Sprintf("/locations/%d", child),
			"map points":     fmt.Sprintf("/locations/%d/map_points", l),
			"notes":          fmt.Sprintf("/entities/%d/entity_notes", eid),
			"events":         fmt.Sprintf("/entities/%d/entity_events", eid),
		}, writes: []dependent{
			{req{"PATCH", r.path("/locations/%d", child), map[string]any{"name": "Renamed"}}, 200, "", false},
			{req{"PATCH", r.path("/locations/%d/map_points/%d", l, point), map[string]any{"name": "Moved"}}, 404, "", false},
			{req{"POST", r.path("/locations/%d/map_points", l), mapPoint()}, 404, "", false},
			{req{"PATCH", r.path("/entities/%d/entity_notes/%d", eid, note), map[string]any{"name": "Renamed"}}, 404, "", false},
			{req{"POST", r.path("/entities/%d/entity_notes", eid), map[string]any{"name": "Note"}}, 404, "", false},
			{req{"PATCH", r.path("/entities/%d/entity_events/%d", eid, ev), map[string]any{"name": "Renamed"}}, 404, "", false},
			{req{"POST", r.path("/locations"), map[string]any{"name": "Child", "parent_location_id": l}}, 422, "parent_location_id", false},
		}}
	}},
	{"calendar", func(r *round) owned {
		cal, calEntity := r.calendar("Doomed")
		_, hero := r.location(map[string]any{"name": "Hero"})
		var heroEvent, note, ev int64
		for i := 0; i < 2; i++ {
			heroEvent = r.must("POST", r.path("/entities/%d/entity_events", hero), event(cal)).id()
			note = r.must("POST", r.path("/entities/%d/entity_notes", calEntity), map[string]any{"name": "Note"}).id()
			ev = r.must("POST", r.path("/entities/%d/entity_events", calEntity), event(cal)).id()
		}
		return owned{path: fmt.Sprintf("/calendars/%d", cal), children: map[string]string{
			"events of another entity on it": fmt.Sprintf("/entities/%d/entity_events", hero),
			"notes":                          fmt.Sprintf("/entities/%d/entity_notes", calEntity),
			"events":                         fmt.Sprintf("/entities/%d/entity_events", calEntity),
		}, writes: []dependent{
			// The event stays with its entity until the cascade removes it: a write to it
			// names the calendar that is gone.
			{req{"PATCH", r.path("/entities/%d/entity_events/%d", hero, heroEvent), map[string]any{"name": "Renamed"}}, 422, "calendar_id", true},
			{req{"PATCH", r.path("/entities/%d/reminders/%d", hero, heroEvent), map[string]any{"day": 6}}, 422, "calendar_id", true},
			{req{"POST", r.path("/entities/%d/entity_events", hero), event(cal)}, 422, "calendar_id", false},
			{req{"PATCH", r.path("/entities/%d/entity_notes/%d", calEntity, note), map[string]any{"name": "Renamed"}}, 404, "", false},
			{req{"PATCH", r.path("/entities/%d/entity_events/%d", calEntity, ev), map[string]any{"name": "Renamed"}}, 404, "", false},
		}}
	}},
}

// TestFaultDuringDelete fails each DynamoDB call of a DELETE in turn, reads included (a read
// that fails after some writes stops a delete half-way as surely as a failed write): DynamoDB
// answers 500 and the SDK does not retry. One of two outcomes must follow: the record visible
// with every child intact and the DELETE answered 503 (nothing written), or the record
// invisible, the DELETE answered 200 (its first step was written) and the delete finished by a
// retry. Either way the stored state must then pass the audit.
func TestFaultDuringDelete(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	h := newHarness(t, families.Register, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	broken := 0
	for _, o := range faultOwners {
		t.Run(o.name, func(t *testing.T) {
			// A delete without faults: which calls it makes.
			r := h.newRound(t)
			rec := o.build(r)
			p.Reset()
			r.must("DELETE", r.path("%s", rec.path), nil)
			var points []faultproxy.Rule
			calls := p.CallsByOp()
			ops := make([]string, 0, len(calls))
			for op := range calls {
				ops = append(ops, op)
			}
			sort.Strings(ops)
			for _, op := range ops {
				for n := 1; n <= calls[op]; n++ {
					points = append(points, faultproxy.Rule{Op: op, Calls: []int{n}, Fault: faultproxy.InternalServerError})
				}
			}
			if len(points) == 0 {
				t.Fatal("the delete made no DynamoDB call")
			}
			var failed []string
			for _, rule := range points {
				r := h.newRound(t)
				rec := o.build(r)
				before := r.snapshot(rec)
				p.Reset()
				p.Inject(rule)
				first, err := h.send("DELETE", r.path("%s", rec.path), nil)
				p.Reset()
				if err != nil {
					t.Fatal(err)
				}
				if problems := r.faultOutcome(rec, first, before); len(problems) > 0 {
					failed = append(failed, fmt.Sprintf("%s call %d failing (DELETE answered %d): %s", rule.Op, rule.Calls[0], first.Status, strings.Join(problems, "; ")))
				}
			}
			sort.Strings(failed)
			summary := fmt.Sprintf("DELETE %s failing at each of its %d DynamoDB calls: %d left a broken state", o.name, len(points), len(failed))
			verdict(t, summary, failed, &broken)
		})
	}
	staleGate(t, broken)
}

// faultOutcome checks what a DELETE that met a fault left, and retries it when the record is
// gone from view.
func (r *round) faultOutcome(rec owned, first answer, before map[string]string) []string {
	var problems []string
	if first.Status != 200 && first.Status != 503 {
		problems = append(problems, fmt.Sprintf("DELETE answered %d %v", first.Status, first.Body))
	}
	show, err := r.h.send("GET", r.path("%s", rec.path), nil)
	if err != nil {
		r.t.Fatal(err)
	}
	switch {
	case show.Status == 200 && first.Status == 200:
		problems = append(problems, "DELETE answered 200 but the record is still there")
	case show.Status == 200:
		// Nothing happened, as far as a reader can tell: every child must be intact.
		after := r.snapshot(rec)
		for name, was := range before {
			if after[name] != was {
				problems = append(problems, fmt.Sprintf("record visible but %s changed: %s, was %s", name, after[name], was))
			}
		}
	case show.Status == 404:
		// Gone from view: the delete happened, and a retry must finish it.
		if first.Status != 200 {
			problems = append(problems, fmt.Sprintf("DELETE answered %d, but the record is gone", first.Status))
		}
		retry, err := r.h.send("DELETE", r.path("%s", rec.path), nil)
		if err != nil {
			r.t.Fatal(err)
		}
		if retry.Status != 200 && retry.Status != 404 {
			problems = append(problems, fmt.Sprintf("retried DELETE answered %d %v", retry.Status, retry.Body))
		}
		for name, state := range r.snapshot(rec) {
			if want := map[bool]string{true: "parent null", false: "404"}[strings.HasPrefix(name, "child")]; strings.HasPrefix(name, "events of another") {
				if state != "total 0" {
					problems = append(problems, fmt.Sprintf("after the retry %s: %s, want none", name, state))
				}
			} else if state != want {
				problems = append(problems, fmt.Sprintf("after the retry %s: %s, want %s", name, state, want))
			}
		}
	default:
		problems = append(problems, fmt.Sprintf("GET after the DELETE answered %d", show.Status))
	}
	audit, err := ops.Audit(context.Background(), r.h.auditor, r.cid)
	if err != nil {
		r.t.Fatal(err)
	}
	return append(problems, audit...)
}
