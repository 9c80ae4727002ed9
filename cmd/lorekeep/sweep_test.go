package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// lockedBuffer collects a child process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSweepFinishesPendingDeletes leaves calendar deletes pending (their cascades fail after
// the first step, through a fault proxy in front of the same table): `lorekeep sweep` leaves a
// delete pending for less than --older-than alone and finishes it with --older-than 0s, and
// `lorekeep serve` finishes the next one on its own, periodically.
func TestSweepFinishesPendingDeletes(t *testing.T) {
	l := newLorekeep(t)
	cid := int64(l.json("demo")["campaign_id"].(float64))
	table := ""
	for _, kv := range l.env {
		if v, ok := strings.CutPrefix(kv, "TABLE_NAME="); ok {
			table = v
		}
	}
	ctx := context.Background()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	cfg := store.Config{TableName: table, Endpoint: dynamotest.Endpoint(t), Region: "us-east-1"}
	api, err := store.Open(ctx, cfg, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	if err != nil {
		t.Fatal(err)
	}
	auditor, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	audit := func() []string {
		t.Helper()
		problems, err := ops.Audit(ctx, auditor, cid)
		if err != nil {
			t.Fatal(err)
		}
		return problems
	}
	// pending deletes a calendar with another entity's event on it, failing its cascade.
	pending := func() {
		t.Helper()
		meta := domain.Meta{CampaignID: cid, CreatedBy: 1}
		cal := &timeline.Calendar{Meta: meta, Owner: domain.Owner{Name: "Doomed"}, Date: calengine.Date{Year: 1, Month: 1, Day: 1},
			Months: []calengine.Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"X", "Y"}}
		hero := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "Hero"}}
		for _, err := range []error{calstore.New(api).CreateCalendar(ctx, cal), locstore.New(api).CreateLocation(ctx, hero)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		ev := &timeline.Event{Meta: meta, EntityID: hero.EntityID, CalendarID: cal.ID, Name: "Feast", Length: 1,
			Date: calengine.Date{Year: 1, Month: 1, Day: 5}, Visibility: domain.VisibilityAll}
		if err := eventstore.New(api).CreateEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		p.Inject(faultproxy.Rule{Op: "Query", Fault: faultproxy.InternalServerError})
		err := calstore.New(api).DeleteCalendar(ctx, cal)
		faults := p.Faults("Query")
		p.Reset()
		if err != nil || faults == 0 {
			t.Fatalf("delete: %v after %d failed queries, want it pending", err, faults)
		}
		if got := strings.Join(audit(), "\n"); !strings.Contains(got, "reference cascade is pending") {
			t.Fatalf("audit %q, want the trash's cascade pending", got)
		}
	}

	pending()
	if r := l.json("sweep"); r["finished"] != float64(0) || r["remaining"] != false {
		t.Fatalf("sweep of a delete pending for seconds: %v, want nothing finished", r)
	}
	if r := l.json("sweep", "--older-than", "0s"); r["finished"] != float64(1) || r["failed"] != float64(0) {
		t.Fatalf("sweep --older-than 0s: %v, want 1 finished", r)
	}
	if problems := audit(); len(problems) > 0 {
		t.Fatalf("after lorekeep sweep: %v", problems)
	}

	pending()
	var logs lockedBuffer
	srv := exec.Command(l.bin, "serve", "--addr", freeAddr(t), "--sweep-every", "100ms", "--sweep-older-than", "0s")
	srv.Env = l.env
	srv.Stderr = &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = srv.Process.Signal(os.Interrupt)
			_ = srv.Wait()
		}
	}
	t.Cleanup(stop)
	// Wait for the sweep's log line (not a timing assertion: the bound is for a sweep that
	// never comes).
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(logs.String(), `"msg":"sweep","finished":1`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("lorekeep serve logged no sweep that finished the delete: %v\n%s", audit(), logs.String())
		}
	}
	stop()
	if problems := audit(); len(problems) > 0 {
		t.Fatalf("after serve's sweep: %v\n%s", problems, logs.String())
	}
}
