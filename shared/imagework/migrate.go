package imagework

import (
	"context"
	"errors"
	"log/slog"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/store"
)

// LegacyStore is what MigrateLegacyImages needs of the store (store.Store).
type LegacyStore interface {
	Queue
	LegacyImages(ctx context.Context, limit int) (store.LegacyImageBatch, error)
	AdoptLegacyImage(ctx context.Context, img store.LegacyImage, path string) error
	SaveLegacyImages(ctx context.Context, b store.LegacyImageBatch) error
}

// LegacyFailure is a record whose image_url could not be stored: it keeps its address.
type LegacyFailure struct {
	store.LegacyImage
	Reason string `json:"reason"`
}

// LegacyResult says what one run of MigrateLegacyImages did.
type LegacyResult struct {
	Stored  int             `json:"images_stored"`
	Skipped int             `json:"images_skipped"`
	Failed  []LegacyFailure `json:"images_failed"`
	// Done: this run reached the end of the table (the next one begins a new pass).
	Done bool `json:"images_done"`
}

// MigrateLegacyImages fetches the image_url of at most limit records written before images
// were stored, through the same guard and processing as a write's image_url (DESIGN 13), and
// makes each the record's stored image. A file that is not an acceptable image or an address
// that cannot be fetched leaves the record unchanged and is reported; a record changed or
// deleted meanwhile is skipped (its picture let go); an unavailable table or bucket stops the
// run before its checkpoint moves, so the next run does the batch again (converted records no
// longer match: idempotent).
func (w *Worker) MigrateLegacyImages(ctx context.Context, st LegacyStore, limit int) (LegacyResult, error) {
	res := LegacyResult{Failed: []LegacyFailure{}}
	b, err := st.LegacyImages(ctx, limit)
	if err != nil {
		return res, err
	}
	for _, img := range b.Images {
		path, err := w.Process(ctx, images.Job{CampaignID: img.CampaignID, Field: "image_url", URL: img.URL})
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Code == apperr.EInvalid {
			res.Failed = append(res.Failed, LegacyFailure{LegacyImage: img, Reason: ae.Message})
			continue
		}
		if err != nil {
			return res, err
		}
		err = st.AdoptLegacyImage(ctx, img, path)
		if err != nil {
			if derr := w.queue.DiscardImage(context.WithoutCancel(ctx), img.CampaignID, path); derr != nil {
				slog.WarnContext(ctx, "image left for the sweeper", "path", path, "err", derr.Error())
			}
		}
		switch {
		case errors.Is(err, store.ErrLegacyImageChanged), errors.Is(err, apperr.ErrNotFound):
			res.Skipped++
		case err != nil:
			return res, err
		default:
			res.Stored++
		}
	}
	res.Done = b.Done
	return res, st.SaveLegacyImages(ctx, b)
}
