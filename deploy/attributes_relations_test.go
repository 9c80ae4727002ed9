package deploy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/attributes/attrstore"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/store"
)

// attributeSteps replay the town's attributes: one created, read, changed, the list replaced
// and extended in bulk (Kanka's PUT and PATCH), one deleted.
var attributeSteps = []replayStep{
	{"attributes-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created attribute", r.data(), map[string]any{"id": 1, "entity_id": townEntity, "name": "Population",
			"value": "1200", "type_id": 6, "type": "number", "is_pinned": true, "is_star": true, "is_private": false})
		if _, set, err := attrstore.New(st).GetAttributes(context.Background(), 1, townEntity); err != nil || len(set.Items) != 1 || *set.Items[0].Value != "1200" {
			t.Errorf("stored attributes = %+v, %v", set.Items, err)
		}
	}},
	{"attributes-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/entities/1/attributes"})
	}},
	{"attributes-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "attribute", r.data(), map[string]any{"id": 1, "name": "Population"})
	}},
	{"attributes-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "patched attribute", r.data(), map[string]any{"id": 1, "value": "1350", "type_id": 6, "is_pinned": true})
	}},
	{"attributes-bulk-put.json", func(t *testing.T, st *store.Store, r response) {
		if len(r.list()) != 2 {
			t.Fatalf("data = %v, want Population and Ruler", r.body["data"])
		}
		hasFields(t, "replaced", r.list()[0].(map[string]any), map[string]any{"id": 1, "value": "1400", "default_order": 0, "is_pinned": false})
		hasFields(t, "created", r.list()[1].(map[string]any), map[string]any{"id": 2, "name": "Ruler", "default_order": 1})
	}},
	{"attributes-bulk-patch.json", func(t *testing.T, st *store.Store, r response) {
		if len(r.list()) != 3 {
			t.Fatalf("data = %v, want the two kept and Walled", r.body["data"])
		}
		hasFields(t, "added", r.list()[2].(map[string]any), map[string]any{"id": 3, "name": "Walled", "type_id": 3, "type": "checkbox"})
	}},
	{"attributes-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted attribute", r.data(), map[string]any{"id": 3, "deleted": true})
		if _, set, err := attrstore.New(st).GetAttributes(context.Background(), 1, townEntity); err != nil || len(set.Items) != 2 {
			t.Errorf("stored attributes after delete = %+v, %v", set.Items, err)
		}
	}},
}

// relationSteps replay a two-way relation between the town and the calendar's entity: created
// (with its mirror), read, listed, changed, listed campaign-wide, deleted (the mirror stays).
var relationSteps = []replayStep{
	{"relations-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created relation", r.data(), map[string]any{"id": 1, "owner_id": townEntity, "target_id": calendarEntity,
			"relation": "Keeps time by", "attitude": 20, "colour": "#2255aa", "visibility": "all", "visibility_id": 1, "mirror_id": 2})
		_, m, err := relstore.New(st).GetRelationAndEntity(context.Background(), 1, calendarEntity, 2)
		if err != nil || m.Relation != "Keeps the time of" || m.MirrorID == nil || *m.MirrorID != 1 {
			t.Errorf("mirror = %+v, %v", m, err)
		}
	}},
	{"relations-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v", r.body["data"])
		}
	}},
	{"relations-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "relation", r.data(), map[string]any{"id": 1, "target_id": calendarEntity})
	}},
	{"relations-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "patched relation", r.data(), map[string]any{"id": 1, "attitude": 60, "is_pinned": true, "is_star": true, "mirror_id": 2})
	}},
	{"relations-campaign-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 2 {
			t.Fatalf("data = %v, want the relation and its mirror", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 2, "path": apiBase + "/relations"})
	}},
	{"relations-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted relation", r.data(), map[string]any{"id": 1, "deleted": true})
		ctx := context.Background()
		if _, _, err := relstore.New(st).GetRelationAndEntity(ctx, 1, townEntity, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("relation after delete: %v", err)
		}
		if _, m, err := relstore.New(st).GetRelationAndEntity(ctx, 1, calendarEntity, 2); err != nil || m.MirrorID != nil {
			t.Errorf("mirror after delete = %+v, %v; want kept, unlinked", m, err)
		}
	}},
}
