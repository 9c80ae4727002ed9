package main

import "testing"

// The command end to end (the rewrite itself is tested in the store): one JSON object, and a
// second run is as good as the first. A fresh campaign's only counters are its membership's
// (the campaign's member count and its owner's campaign count), rewritten by each recount.
func TestMigrateCommand(t *testing.T) {
	l := newLorekeep(t)
	l.json("campaign", "create", "--name", "C", "--owner", "alice")
	for run := 0; run < 2; run++ {
		r := l.json("migrate")
		if r["layout"] != float64(3) || r["records_rewritten"] != float64(0) || r["counters_written"] != float64(4) {
			t.Fatalf("run %d: %v", run, r)
		}
	}
}
