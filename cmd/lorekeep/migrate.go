package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lorekeep/lorekeep/shared/store"
)

// migrateTable runs `lorekeep migrate`: it rewrites the table to the store's key layout
// (resumable: run it again after an interruption), a progress line per scanned page on
// progress, the result as one JSON object on out.
func migrateTable(ctx context.Context, st *store.Store, out, progress io.Writer) error {
	res, err := st.Migrate(ctx, func(line string) { fmt.Fprintln(progress, line) })
	if err != nil {
		return fmt.Errorf("migrate (run it again to resume): %w", err)
	}
	return json.NewEncoder(out).Encode(map[string]any{"layout": store.LayoutVersion, "items_read": res.Read,
		"records_rewritten": res.Rewritten, "counters_written": res.Counters, "resumed": res.Resumed})
}
