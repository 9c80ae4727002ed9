package ops

import (
	"context"
	"errors"
	"log/slog"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Records written before images were stored hold the address they were created with in
// image_url (shown as is, has_custom_image false). `lorekeep migrate` fetches those addresses
// into the bucket (MigrateLegacyImages, with the images function's worker) a bounded batch a run: legacyImages finds the
// next batch from the checkpoint, adoptLegacyImage makes each fetched picture the record's
// image (as SetEntityImage does, on condition that the record still holds that address), and
// saveLegacyImages moves the checkpoint past the batch. A converted record holds no image_url
// any more, so a batch processed twice (a run interrupted before its checkpoint) converts
// nothing twice; a record whose fetch failed keeps its address and is tried again by the next
// pass over the table.

// LegacyImage is a record whose image is an address from before images were stored: its
// entity (which mirrors it), campaign and image_url.
type LegacyImage struct {
	CampaignID int64  `json:"campaign_id"`
	EntityID   int64  `json:"entity_id"`
	URL        string `json:"image_url"`
}

// LegacyImageBatch is LegacyImages' answer: at most the limit asked, and whether the pass over
// the table ended with it.
type LegacyImageBatch struct {
	Images []LegacyImage
	Done   bool
	next   layout.ItemKey // where the following batch starts
}

// legacyImagePage is the items per scanned page of legacyImages.
const legacyImagePage = 500

type imageMigrationState struct {
	PK     string `dynamo:"pk"`
	SK     string `dynamo:"sk"`
	LastPK string `dynamo:"last_pk"`
	LastSK string `dynamo:"last_sk"`
}

// legacyImages scans from the checkpoint for up to limit entities whose record's image is an
// old image_url (entity homes, which mirror their records: trashed ones are not there), a
// page of legacyImagePage items at a time, until it has limit or the table ends.
func (s storeView) legacyImages(ctx context.Context, limit int) (LegacyImageBatch, error) {
	var st imageMigrationState
	err := s.table.Get("pk", layout.MigrationPK).Range("sk", dynamo.Equal, layout.ImageMigrationSK).Consistent(true).One(ctx, &st)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return LegacyImageBatch{}, layout.Wrap(err)
	}
	var b LegacyImageBatch
	start := layout.ItemKey{PK: st.LastPK, SK: st.LastSK}
	for len(b.Images) < limit {
		q := s.table.Scan().Consistent(true).SearchLimit(legacyImagePage).
			Filter("begins_with('pk', ?) AND begins_with('sk', ?) AND attribute_exists('image_url') AND attribute_not_exists('image_path')",
				layout.CampaignPrefix, layout.EntityPrefix+"#")
		if start.PK != "" {
			q = q.StartFrom(dynamo.PagingKey{"pk": layout.AttrS(start.PK), "sk": layout.AttrS(start.SK)})
		}
		var items []layout.EntityItem
		lek, err := q.AllWithLastEvaluatedKey(ctx, &items)
		if err != nil {
			return LegacyImageBatch{}, layout.Wrap(err)
		}
		for _, it := range items {
			if len(b.Images) == limit {
				return b, nil
			}
			b.next = layout.ItemKey{PK: it.PK, SK: it.SK}
			if it.ImageURL != "" {
				b.Images = append(b.Images, LegacyImage{CampaignID: it.CampaignID, EntityID: it.ID, URL: it.ImageURL})
			}
		}
		if lek == nil {
			b.Done, b.next = true, layout.ItemKey{}
			return b, nil
		}
		_ = dynamo.Unmarshal(lek["pk"], &start.PK)
		_ = dynamo.Unmarshal(lek["sk"], &start.SK)
		b.next = start
	}
	return b, nil
}

// adoptLegacyImage makes path (reserved) the image of img's record if it still holds img.URL
// (store.ErrLegacyImageChanged otherwise; ErrNotFound for a record deleted since): one transaction
// as SetEntityImage's, which moves updated_at and the sync pointers (readers see the new image
// fields) and keeps updated_by.
func (s storeView) adoptLegacyImage(ctx context.Context, img LegacyImage, path string) error {
	_, err := s.EntityImage(ctx, img.CampaignID, img.EntityID, 0, path, img.URL)
	return err
}

// saveLegacyImages moves the checkpoint past b; at the end of a pass it is removed, so the next
// run begins a new pass (which tries the failed records again).
func (s storeView) saveLegacyImages(ctx context.Context, b LegacyImageBatch) error {
	if b.Done {
		return layout.Wrap(s.table.Delete("pk", layout.MigrationPK).Range("sk", layout.ImageMigrationSK).Run(ctx))
	}
	return layout.Wrap(s.table.Put(imageMigrationState{PK: layout.MigrationPK, SK: layout.ImageMigrationSK, LastPK: b.next.PK, LastSK: b.next.SK}).Run(ctx))
}

// LegacyImages is the next batch of at most limit records whose image is still an old
// image_url, from the checkpoint (storeView.legacyImages).
func LegacyImages(ctx context.Context, st *store.Store, limit int) (LegacyImageBatch, error) {
	return view(st).legacyImages(ctx, limit)
}

// AdoptLegacyImage makes path the image of img's record if it still holds img.URL
// (store.ErrLegacyImageChanged otherwise, apperr.ErrNotFound for a record deleted since).
func AdoptLegacyImage(ctx context.Context, st *store.Store, img LegacyImage, path string) error {
	return view(st).adoptLegacyImage(ctx, img, path)
}

// LegacyFailure is a record whose image_url could not be stored: it keeps its address.
type LegacyFailure struct {
	LegacyImage
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
// were stored, through the same guard and processing as a write's image_url (w, DESIGN 13),
// and makes each the record's stored image. A file that is not an acceptable image or an
// address that cannot be fetched leaves the record unchanged and is reported; a record changed
// or deleted meanwhile is skipped (its picture let go); an unavailable table or bucket stops
// the run before its checkpoint moves, so the next run does the batch again (converted records
// no longer match: idempotent).
func MigrateLegacyImages(ctx context.Context, st *store.Store, w *imagework.Worker, limit int) (LegacyResult, error) {
	s := view(st)
	res := LegacyResult{Failed: []LegacyFailure{}}
	b, err := s.legacyImages(ctx, limit)
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
		err = s.adoptLegacyImage(ctx, img, path)
		if err != nil {
			if derr := st.DiscardImage(context.WithoutCancel(ctx), img.CampaignID, path); derr != nil {
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
	return res, s.saveLegacyImages(ctx, b)
}
