package layout

import "github.com/lorekeep/lorekeep/shared/domain"

// TrashedEntity is an entity in the trash: its home as it was, and when and by whom.
type TrashedEntity struct {
	EntityItem
	DeletedAt string `dynamo:"deleted_at"`
	DeletedBy int64  `dynamo:"deleted_by"`
	TTL       int64  `dynamo:"ttl"`
}

// PurgeItem lists a trash by its expiry (PurgeKey).
type PurgeItem struct {
	PK        string `dynamo:"pk"`
	SK        string `dynamo:"sk"`
	CID       int64  `dynamo:"campaign_id"`
	EntityID  int64  `dynamo:"entity_id"`
	Kind      string `dynamo:"kind"`
	ID        int64  `dynamo:"id"`
	DeletedAt string `dynamo:"deleted_at"`
}

func (t TrashedEntity) Trashed() *domain.Entity {
	e := t.Entity()
	at := ParseTime(t.DeletedAt)
	e.DeletedAt, e.DeletedBy = &at, t.DeletedBy
	return e
}
