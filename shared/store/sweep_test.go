package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// The sweeper reads one Query per marker shard when nothing is pending, finishes only the
// deletes pending for longer than its cutoff, at most 25 per shard per sweep (saying when
// more remain), and removes markers whose delete had already finished.
func TestSweepFinishesOldPendingDeletesInBoundedBatches(t *testing.T) {
	var calls dynamotest.Counter
	st, _ := dynamotest.NewStore(t, calls.Attach)
	ctx := context.Background()
	calls.Reset()
	if res, err := st.SweepDeletes(ctx, store.PendingDeleteAge); err != nil || res != (store.SweepResult{}) || calls.N() != 16 {
		t.Fatalf("idle sweep: %+v %v in %d calls, want nothing done in 16 (one Query per shard)", res, err, calls.N())
	}
	old := time.Now().Add(-2 * time.Minute)
	for id := int64(1); id <= 30; id++ {
		if err := store.PutPendingDelete(ctx, st, 7, "LOCATION", id, old, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range []error{
		store.PutPendingDelete(ctx, st, 7, "CALENDAR", 1, time.Now(), false), // pending for less than a minute
		store.PutPendingDelete(ctx, st, 7, "LOCATION", 99, old, true),        // its delete had finished
		store.PutPendingDelete(ctx, st, 8, "CALENDAR", 2, old, false),        // another shard
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []struct {
		olderThan time.Duration
		res       store.SweepResult
	}{
		{store.PendingDeleteAge, store.SweepResult{Finished: 26, Remaining: true}}, // 25 of shard 7, 1 of shard 8
		{store.PendingDeleteAge, store.SweepResult{Finished: 5, Stale: 1}},
		{store.PendingDeleteAge, store.SweepResult{}},
		{0, store.SweepResult{Finished: 1}},
		{0, store.SweepResult{}},
	} {
		if res, err := st.SweepDeletes(ctx, want.olderThan); err != nil || res != want.res {
			t.Fatalf("sweep %d (older than %s): %+v %v, want %+v", i+1, want.olderThan, res, err, want.res)
		}
	}
	for _, cid := range []int64{7, 8} {
		if problems, err := ops.Audit(ctx, st, cid); err != nil || len(problems) > 0 {
			t.Fatalf("campaign %d after the sweeps: %v %v", cid, problems, err)
		}
	}
}
