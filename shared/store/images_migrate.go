package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Records written before images were stored hold the address they were created with in
// image_url (shown as is, has_custom_image false). `lorekeep migrate` fetches those addresses
// into the bucket (imagework.MigrateLegacyImages) a bounded batch a run: LegacyImages finds the
// next batch from the checkpoint, AdoptLegacyImage makes each fetched picture the record's
// image (as SetEntityImage does, on condition that the record still holds that address), and
// SaveLegacyImages moves the checkpoint past the batch. A converted record holds no image_url
// any more, so a batch processed twice (a run interrupted before its checkpoint) converts
// nothing twice; a record whose fetch failed keeps its address and is tried again by the next
// pass over the table.

// ErrLegacyImageChanged: the record's image is no longer the address the migration fetched (a
// write changed it meanwhile); its fetched picture is let go.
var ErrLegacyImageChanged = errors.New("the record's image changed since it was read")

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

// legacyImagePage is the items per scanned page of LegacyImages.
const legacyImagePage = 500

type imageMigrationState struct {
	PK     string `dynamo:"pk"`
	SK     string `dynamo:"sk"`
	LastPK string `dynamo:"last_pk"`
	LastSK string `dynamo:"last_sk"`
}

// LegacyImages scans from the checkpoint for up to limit entities whose record's image is an
// old image_url (entity homes, which mirror their records: trashed ones are not there), a
// page of legacyImagePage items at a time, until it has limit or the table ends.
func (s *Store) LegacyImages(ctx context.Context, limit int) (LegacyImageBatch, error) {
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

// AdoptLegacyImage makes path (reserved) the image of img's record if it still holds img.URL
// (ErrLegacyImageChanged otherwise; ErrNotFound for a record deleted since): one transaction
// as SetEntityImage's, which moves updated_at and the sync pointers (readers see the new image
// fields) and keeps updated_by.
func (s *Store) AdoptLegacyImage(ctx context.Context, img LegacyImage, path string) error {
	_, err := s.entityImage(ctx, img.CampaignID, img.EntityID, 0, path, img.URL)
	return err
}

// SaveLegacyImages moves the checkpoint past b; at the end of a pass it is removed, so the next
// run begins a new pass (which tries the failed records again).
func (s *Store) SaveLegacyImages(ctx context.Context, b LegacyImageBatch) error {
	if b.Done {
		return layout.Wrap(s.table.Delete("pk", layout.MigrationPK).Range("sk", layout.ImageMigrationSK).Run(ctx))
	}
	return layout.Wrap(s.table.Put(imageMigrationState{PK: layout.MigrationPK, SK: layout.ImageMigrationSK, LastPK: b.next.PK, LastSK: b.next.SK}).Run(ctx))
}
