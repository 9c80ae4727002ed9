package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
)

// maxLegacyImages bounds one run's image fetches (each at most imagework.FetchTimeout).
const maxLegacyImages = 500

// migrateTable runs `lorekeep migrate`: it rewrites the table to the store's key layout
// (resumable: run it again after an interruption), a progress line per scanned page on
// progress, then fetches up to limit old records' image_url into bucket (nil: skipped), and
// writes the result as one JSON object on out. Records whose image could not be fetched keep
// their address and are listed under images_failed.
func migrateTable(ctx context.Context, st *store.Store, bucket *imagestore.Bucket, fetch imagework.Options, limit int, out, progress io.Writer) error {
	res, err := ops.Migrate(ctx, st, func(line string) { fmt.Fprintln(progress, line) })
	if err != nil {
		return fmt.Errorf("migrate (run it again to resume): %w", err)
	}
	answer := map[string]any{"layout": res.Layout, "items_read": res.Read,
		"records_rewritten": res.Rewritten, "counters_written": res.Counters, "resumed": res.Resumed, "images": nil}
	if bucket != nil {
		ir, err := ops.MigrateLegacyImages(ctx, st, imagework.New(bucket, st, fetch), limit)
		if err != nil {
			return fmt.Errorf("migrate images (run it again to resume): %w", err)
		}
		fmt.Fprintf(progress, "migrate: images: %d stored, %d failed, %d skipped, pass done: %v\n", ir.Stored, len(ir.Failed), ir.Skipped, ir.Done)
		answer["images"] = ir
	}
	return json.NewEncoder(out).Encode(answer)
}
