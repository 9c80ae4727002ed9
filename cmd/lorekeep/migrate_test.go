package main

import "testing"

// The command end to end (the rewrite itself is tested in the store): one JSON object, and a
// second run is as good as the first.
func TestMigrateCommand(t *testing.T) {
	l := newLorekeep(t)
	l.json("campaign", "create", "--name", "C", "--owner", "alice")
	for run := 0; run < 2; run++ {
		r := l.json("migrate")
		if r["layout"] != float64(3) || r["records_rewritten"] != float64(0) || r["counters_written"] != float64(0) {
			t.Fatalf("run %d: %v", run, r)
		}
	}
}
