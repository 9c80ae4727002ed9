package maps

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Storage is the family's storage: the kernel's maps, markers and packs, and the locations
// family's reads of a map's location.
type Storage struct {
	*store.Store
	locations *locstore.Storage
}

// NewStorage wraps the kernel.
func NewStorage(st *store.Store) *Storage { return &Storage{Store: st, locations: locstore.New(st)} }

// GetLocation reads a map's location (locstore.Storage.GetLocation).
func (s *Storage) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	return s.locations.GetLocation(ctx, cid, id)
}
