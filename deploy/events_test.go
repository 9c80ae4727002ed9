package deploy_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarmonth"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// replayStep is one sample event of the replay, in order, and what it must do.
type replayStep struct {
	file  string
	check func(t *testing.T, st *store.Store, r response)
}

// prepareBefore writes through the store, before the event of its key is replayed, what that
// event's checks need beyond what the earlier events made.
var prepareBefore = map[string]func(t *testing.T, st *store.Store){
	"calendars-delete.json":   prepareCalendarCascade,
	"share-month.json":        prepareShareLink,
	"entity-tags-create.json": prepareSecondTag,
}

// prepareShareLink stores the share link events/share-month.json opens: link 1000 of calendar 1,
// whose token is calendarmonth.Token(shareKey, 1, 1, 1000) with a zero nonce.
func prepareShareLink(t *testing.T, st *store.Store) {
	tok := calendarmonth.Token(shareKey, 1, 1, 1000, [16]byte{})
	ev := loadEvent(t, "share-month.json")
	if !strings.Contains(ev.RawPath, tok) {
		t.Fatalf("events/share-month.json: want the path /share/%s", tok)
	}
	sum := sha256.Sum256([]byte(tok))
	if err := calstore.New(st).CreateShareLink(context.Background(), &calstore.ShareLink{ID: 1000, CampaignID: 1, CalendarID: 1, Audience: "public", TokenHash: sum[:], CreatedBy: 1}); err != nil {
		t.Fatal(err)
	}
}

const apiBase = "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/api/1.0/campaigns/1"

// metaReplay replays the public routes' events (MetaFunction, no token).
var metaReplay = []replayStep{
	{"meta-root.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "root", r.body, map[string]any{"openapi": "/api/1.0/openapi.json", "health": "/health"})
	}},
	{"meta-health.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "health", r.body, map[string]any{"status": "ok"})
	}},
	{"meta-docs.json", func(t *testing.T, _ *store.Store, r response) {
		if !strings.Contains(r.Body, `<redoc spec-url="/api/1.0/openapi.json"`) {
			t.Fatalf("the docs page: %.200s", r.Body)
		}
	}},
	{"meta-docs-bundle.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.Body) < 500_000 {
			t.Fatalf("the Redoc bundle is %d bytes", len(r.Body))
		}
	}},
	{"meta-openapi.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "document", r.body, map[string]any{"openapi": "3.1.0"})
	}},
}

// locationsReplay replays every LocationsFunction event against a fresh table: the ids in the
// events (location 1, map point 1) are the ones the first records get.
var locationsReplay = []replayStep{
	{"locations-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created location", r.data(), map[string]any{
			"id": 1, "name": "Saltmarsh", "type": "Town", "is_private": false, "created_by": 1, "updated_by": 1,
			"parent_location_id": nil, "tags": []int{},
		})
		if !strings.Contains(str(r.data()["entry"]), "Azure Coast") {
			t.Errorf("entry = %q", r.data()["entry"])
		}
		l := mustLocation(t, st)
		if l.Name != "Saltmarsh" || l.EntityID < 1 {
			t.Errorf("stored location = %+v", l)
		}
	}},
	{"locations-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one location", r.body["data"])
		}
		item, _ := r.list()[0].(map[string]any)
		hasFields(t, "listed location", item, map[string]any{"id": 1, "name": "Saltmarsh"})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{
			"total": 1, "current_page": 1, "last_page": 1, "from": 1, "to": 1, "per_page": 45,
			"path": apiBase + "/locations",
		})
		links, _ := r.body["links"].(map[string]any)
		// Links are built from API Gateway's domain name, the address the client called.
		if first := str(links["first"]); !strings.HasPrefix(first, apiBase+"/locations?") {
			t.Errorf("links.first = %q, want it under %s", first, apiBase)
		}
		hasFields(t, "links", links, map[string]any{"prev": nil, "next": nil})
		if _, ok := domain.ParseSyncTime(str(r.body["sync"])); !ok {
			t.Errorf("sync = %v", r.body["sync"])
		}
	}},
	// Kanka today: a raw `;` filter, related arrays and fields, through API Gateway's raw query.
	{"locations-list-related.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one location", r.body["data"])
		}
		item, _ := r.list()[0].(map[string]any)
		hasFields(t, "related location", item, map[string]any{"id": 1, "name": "Saltmarsh", "posts": []any{}, "parents": []any{}, "children": []any{}, "attributes": []any{}})
		if len(item) != 6 {
			t.Errorf("fields: %v", item)
		}
		if next := str(r.body["links"].(map[string]any)["first"]); strings.Count(next, "name=") != 1 || !strings.Contains(next, "name=SALT%3B%21harbour") {
			t.Errorf("links.first = %q: the last name, once", next)
		}
	}},
	{"locations-list-head.json", nil},
	{"locations-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "location", r.data(), map[string]any{"id": 1, "name": "Saltmarsh", "type": "Town"})
	}},
	{"locations-show-head.json", nil},
	{"locations-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated location", r.data(), map[string]any{"id": 1, "name": "Saltmarsh Harbour", "type": "Port town"})
		if !strings.Contains(str(r.data()["entry"]), "Azure Coast") {
			t.Errorf("PUT merges: the entry it did not send must stay, got %q", r.data()["entry"])
		}
		if l := mustLocation(t, st); l.Name != "Saltmarsh Harbour" || l.Type != "Port town" {
			t.Errorf("stored location = %+v", l)
		}
	}},
	{"locations-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched location", r.data(), map[string]any{
			"id": 1, "name": "Saltmarsh Harbour", "map": "https://example.com/maps/saltmarsh.png", "is_map_private": 0,
		})
		if l := mustLocation(t, st); l.MapURL != "https://example.com/maps/saltmarsh.png" || l.Name != "Saltmarsh Harbour" {
			t.Errorf("stored location = %+v", l)
		}
	}},
	{"map-points-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created map point", r.data(), map[string]any{
			"id": 1, "location_id": 1, "name": "Harbour gate", "target_entity_id": nil, "axis_x": 120, "axis_y": 80,
			"colour": "red", "shape": "circle", "size": "standard", "icon": "pin", "created_by": 1,
		})
		if p := mustMapPoint(t, st); p.Name == nil || *p.Name != "Harbour gate" || p.AxisX != 120 {
			t.Errorf("stored map point = %+v", p)
		}
	}},
	{"map-points-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one map point", r.body["data"])
		}
		item, _ := r.list()[0].(map[string]any)
		hasFields(t, "listed map point", item, map[string]any{"id": 1, "location_id": 1, "name": "Harbour gate"})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1})
	}},
	{"map-points-list-head.json", nil},
	{"map-points-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "map point", r.data(), map[string]any{"id": 1, "location_id": 1, "name": "Harbour gate", "colour": "red"})
	}},
	{"map-points-show-head.json", nil},
	{"map-points-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated map point", r.data(), map[string]any{
			"id": 1, "name": "Old harbour gate", "axis_x": 140, "axis_y": 95, "colour": "#1e90ff",
			"shape": "square", "size": "large", "icon": "anchor",
		})
		if p := mustMapPoint(t, st); p.Colour != "#1e90ff" || p.Shape != "square" {
			t.Errorf("stored map point = %+v", p)
		}
	}},
	{"map-points-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched map point", r.data(), map[string]any{"id": 1, "name": "Old harbour gate", "colour": "green", "shape": "square"})
		if p := mustMapPoint(t, st); p.Colour != "green" {
			t.Errorf("stored map point = %+v", p)
		}
	}},
	{"map-points-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted map point", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, err := locstore.New(st).GetMapPoint(context.Background(), 1, 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("map point after delete: %v, want not found", err)
		}
	}},
	// Kanka's entities/{id}/image on location 1's entity (ImagesFunction; a multipart upload,
	// base64-encoded by API Gateway): stored, shown, removed.
	{"entity-image-upload.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "entity image", r.data(), map[string]any{"entity_id": 1, "child_id": 1, "has_custom_image": true})
		if l := mustLocation(t, st); !strings.HasPrefix(l.ImagePath, "img/1/") || !strings.HasSuffix(l.ImagePath, ".png") {
			t.Errorf("stored location image = %q", l.ImagePath)
		}
	}},
	{"entity-image-show.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "entity image", r.data(), map[string]any{"entity_id": 1, "has_custom_image": true, "image": mustLocation(t, st).ImagePath})
	}},
	{"entity-image-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "entity image", r.data(), map[string]any{"entity_id": 1, "has_custom_image": false, "image": ""})
		if l := mustLocation(t, st); l.ImagePath != "" {
			t.Errorf("stored location image after remove = %q", l.ImagePath)
		}
	}},
	{"locations-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted location", r.data(), map[string]any{"id": 1, "deleted": true})
		ctx := context.Background()
		if _, err := locstore.New(st).GetLocation(ctx, 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("location after delete: %v, want not found", err)
		}
		if _, err := st.GetEntity(ctx, 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("the location's entity after delete: %v, want not found", err)
		}
	}},
	// Tags, served by the same function (the location above is gone: the tag's entity is 2).
	{"tags-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created tag", r.data(), map[string]any{
			"id": 1, "name": "Villains", "type": "Faction", "colour": "red", "tag_id": nil, "is_private": false,
			"is_hidden": false, "entities": []any{}, "tags": []any{}, "entity_id": 2,
		})
		if tag, err := tagstore.New(st).GetTag(context.Background(), 1, 1); err != nil || tag.Name != "Villains" || tag.Colour != "red" {
			t.Errorf("stored tag = %+v, %v", tag, err)
		}
	}},
	{"tags-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one tag", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/tags"})
	}},
	{"tags-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "tag", r.data(), map[string]any{"id": 1, "name": "Villains", "colour": "red"})
	}},
	{"tags-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched tag", r.data(), map[string]any{"id": 1, "name": "Villains", "colour": "navy", "is_hidden": true})
		if tag, err := tagstore.New(st).GetTag(context.Background(), 1, 1); err != nil || tag.Colour != "navy" || !tag.IsHidden {
			t.Errorf("stored tag = %+v, %v", tag, err)
		}
	}},
	// Tag 1's entity (2) tagged with tag 2 (prepareSecondTag), read, its row put on tag 2 again, then untagged.
	{"entity-tags-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "entity tag", r.data(), map[string]any{"id": 2, "entity_id": 2, "tag_id": 2})
		if tag, err := tagstore.New(st).GetTag(context.Background(), 1, 1); err != nil || !slices.Equal(tag.Tags, []int64{2}) {
			t.Errorf("stored tag = %+v, %v", tag, err)
		}
	}},
	{"entity-tags-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one tag", r.body["data"])
		}
	}},
	{"entity-tags-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "entity tag", r.data(), map[string]any{"id": 2, "entity_id": 2, "tag_id": 2})
	}},
	{"entity-tags-update.json", func(t *testing.T, st *store.Store, r response) { // PUT onto the tag it has: unchanged
		hasFields(t, "updated entity tag", r.data(), map[string]any{"id": 2, "entity_id": 2, "tag_id": 2})
		if tag, err := tagstore.New(st).GetTag(context.Background(), 1, 1); err != nil || !slices.Equal(tag.Tags, []int64{2}) {
			t.Errorf("stored tag = %+v, %v", tag, err)
		}
	}},
	{"entity-tags-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted entity tag", r.data(), map[string]any{"id": 2, "deleted": true})
		if tag, err := tagstore.New(st).GetTag(context.Background(), 1, 1); err != nil || len(tag.Tags) != 0 {
			t.Errorf("stored tag = %+v, %v", tag, err)
		}
	}},
	{"tags-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted tag", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, err := tagstore.New(st).GetTag(context.Background(), 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("tag after delete: %v, want not found", err)
		}
	}},
}

// mapsReplay replays every MapsFunction event against a fresh table (map 1).
var mapsReplay = []replayStep{
	{"maps-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created map", r.data(), map[string]any{
			"id": 1, "name": "Pelor's Reach", "type": "Continent", "map_id": nil, "location_id": nil, "grid": 50,
			"min_zoom": -2, "max_zoom": 3, "initial_zoom": 0, "center_x": 500, "center_y": 422.857,
			"config": map[string]any{"distance_measure": 2.5}, "layers": []any{}, "groups": []any{}, "is_private": false,
		})
		if m, err := mapstore.New(st).GetMap(context.Background(), 1, 1); err != nil || m.Name != "Pelor's Reach" || m.CenterY == nil || *m.CenterY != 422857 {
			t.Errorf("stored map = %+v, %v", m, err)
		}
	}},
	{"maps-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one map", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/maps"})
	}},
	{"maps-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "map", r.data(), map[string]any{"id": 1, "name": "Pelor's Reach", "grid": 50})
	}},
	{"maps-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched map", r.data(), map[string]any{"id": 1, "grid": 0, "initial_zoom": 1, "max_zoom": 3})
		if m, err := mapstore.New(st).GetMap(context.Background(), 1, 1); err != nil || m.Grid != 0 || m.InitialZoom == nil || *m.InitialZoom != 100 {
			t.Errorf("stored map = %+v, %v", m, err)
		}
	}},
	// A polygon marker on it (the docs' example, its stray comma tolerated), then the map's
	// trash takes it.
	{"map-markers-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "created marker", r.data(), map[string]any{"id": 1, "map_id": 1, "name": "Marsh", "latitude": "422.857",
			"longitude": "499.000", "shape_id": 5, "icon": "1", "custom_shape": "500,500 500,600 600,600 600,500", "visibility_id": 1})
	}},
	{"map-markers-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one marker", r.body["data"])
		}
	}},
	{"map-markers-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "marker", r.data(), map[string]any{"id": 1, "name": "Marsh", "colour": "#008000"})
	}},
	{"map-markers-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "patched marker", r.data(), map[string]any{"id": 1, "latitude": "430.000", "is_draggable": true})
	}},
	{"map-markers-delete.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "deleted marker", r.data(), map[string]any{"id": 1, "deleted": true})
	}},
	// A group and a layer, embedded in the map's answer, then deleted.
	{"map-groups-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "created group", r.data(), map[string]any{"id": 1, "map_id": 1, "name": "Towns", "is_shown": true, "parent_id": nil})
	}},
	{"map-groups-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one group", r.body["data"])
		}
	}},
	{"map-groups-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "group", r.data(), map[string]any{"id": 1, "name": "Towns"})
	}},
	{"map-groups-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "patched group", r.data(), map[string]any{"id": 1, "name": "Ports"})
	}},
	{"map-layers-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "created layer", r.data(), map[string]any{"id": 1, "map_id": 1, "name": "Roads", "type_id": 1, "type": "overlay",
			"has_custom_image": true, "width": 6, "height": 4})
	}},
	{"map-layers-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one layer", r.body["data"])
		}
	}},
	{"map-layers-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "layer", r.data(), map[string]any{"id": 1, "name": "Roads"})
	}},
	{"map-layers-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "patched layer", r.data(), map[string]any{"id": 1, "type_id": 2, "type": "overlay_shown"})
	}},
	{"map-groups-delete.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "deleted group", r.data(), map[string]any{"id": 1, "deleted": true})
	}},
	{"map-layers-delete.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "deleted layer", r.data(), map[string]any{"id": 1, "deleted": true})
	}},
	{"maps-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted map", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, err := mapstore.New(st).GetMap(context.Background(), 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("map after delete: %v, want not found", err)
		}
	}},
}

// authorizerEvents are replayed by TestAuthorizerEvent, and the sweeper's schedule by
// TestSweeperFinishesPendingDeletesWithinItsPolicy: no HTTP route.
var authorizerEvents = []string{"authorizer.json", "sweeper-schedule.json"}

// prepareSecondTag writes tag 2, which the entity_tags events put on tag 1.
func prepareSecondTag(t *testing.T, st *store.Store) {
	tag := &domain.Tag{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1, UpdatedBy: 1}, Owner: domain.Owner{Name: "Heroes"}}
	if err := tagstore.New(st).CreateTag(context.Background(), tag); err != nil || tag.ID != 2 {
		t.Fatalf("tag 2: %+v %v", tag, err)
	}
}

func mustLocation(t *testing.T, st *store.Store) *domain.Location {
	t.Helper()
	l, err := locstore.New(st).GetLocation(context.Background(), 1, 1)
	if err != nil {
		t.Fatalf("location 1 of campaign 1: %v", err)
	}
	return l
}

func mustMapPoint(t *testing.T, st *store.Store) *domain.MapPoint {
	t.Helper()
	p, err := locstore.New(st).GetMapPoint(context.Background(), 1, 1, 1)
	if err != nil {
		t.Fatalf("map point 1 of location 1: %v", err)
	}
	return p
}

// replay runs steps through the handler of their function (found from the event's route in
// template.yaml), each answering 200 and passing its checks.
func replay(t *testing.T, st *store.Store, steps []replayStep) {
	t.Helper()
	replayOn(t, st, nil, steps)
}

// replayOn is replay with the handler of each function in fnStores built over that function's
// own store (on the same table: the policy test records each function's calls apart); st
// serves the other functions, the checks and the preparations.
func replayOn(t *testing.T, st *store.Store, fnStores map[string]*store.Store, steps []replayStep) {
	t.Helper()
	routes := loadTemplate(t).httpAPIRoutes(t)
	handlers := map[string]lambdaHandler{}
	for _, s := range steps {
		ev := loadEvent(t, s.file)
		fn := eventFunction(t, routes, s.file, ev)
		if handlers[fn] == nil {
			build, ok := functionHandlers[fn]
			if !ok {
				t.Fatalf("events/%s: no handler known for %s", s.file, fn)
			}
			hst := st
			if fst := fnStores[fn]; fst != nil {
				hst = fst
			}
			handlers[fn] = build(hst)
		}
		if !t.Run(s.file, func(t *testing.T) { replayStepOn(t, st, handlers[fn], ev, s) }) {
			t.Fatalf("events/%s failed: the later events depend on it", s.file)
		}
	}
}

// eventFunction is the function template.yaml routes ev (events/file) to.
func eventFunction(t *testing.T, routes map[route]string, file string, ev events.APIGatewayV2HTTPRequest) string {
	t.Helper()
	method, path, _ := strings.Cut(ev.RouteKey, " ")
	fn, ok := routes[route{method, path}]
	if !ok {
		t.Fatalf("events/%s: route %q is not in template.yaml", file, ev.RouteKey)
	}
	return fn
}

// replayStepOn makes s's preparation, sends its event ev through h and checks the answer: the
// status the OpenAPI document gives the route, the rate limit of lambdaEnv, s's own checks.
func replayStepOn(t *testing.T, st *store.Store, h lambdaHandler, ev events.APIGatewayV2HTTPRequest, s replayStep) response {
	t.Helper()
	want := documentedStatus(t, ev)
	if prepare := prepareBefore[s.file]; prepare != nil {
		prepare(t, st)
	}
	r := invoke(t, h, ev)
	if r.StatusCode != want {
		t.Fatalf("status %d, want %d: %.500s", r.StatusCode, want, r.Body)
	}
	if lim := r.header("X-RateLimit-Limit"); lim != lambdaEnv["RATE_LIMIT"] {
		t.Errorf("X-RateLimit-Limit = %q, want RATE_LIMIT %s", lim, lambdaEnv["RATE_LIMIT"])
	}
	if s.check != nil {
		s.check(t, st, r)
	}
	return r
}

// documentedStatus is the success status of ev's operation in the OpenAPI document.
func documentedStatus(t testing.TB, ev events.APIGatewayV2HTTPRequest) int {
	t.Helper()
	want, err := apitest.DocumentedSuccess(httptest.NewRequest(ev.RequestContext.HTTP.Method, ev.RawPath, nil))
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// replayGroup is one replay of sample events on a fresh table: seeds make what its events
// assume, then its steps run in order.
type replayGroup struct {
	name  string
	seeds []func(*testing.T, *store.Store)
	steps []replayStep
}

// replayGroups are every HTTP event's replay, run in process here and through the functions'
// own binaries by TestLocalInvoke.
var replayGroups = []replayGroup{
	{"locations", seeds(seed), locationsReplay},
	{"maps", seeds(seed), mapsReplay},
	{"public routes", nil, metaReplay},
	{"calendars and entities", seeds(seed, seedEntity), entitiesReplay},
	{"webhooks", seeds(seed), webhooksReplay},
	{"modules", seeds(seed), modulesReplay},
	{"mcp", seeds(seed, seedSampleToken), mcpReplay},
}

// modulesReplay creates a character through the modules' route, lists and shows it, and reads
// the category statuses.
var modulesReplay = []replayStep{
	{"modules-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "character", r.data(), map[string]any{"id": 1, "name": "Ann", "title": "Captain", "status_id": nil, "is_dead": false})
	}},
	{"modules-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the character", r.body["data"])
		}
	}},
	{"modules-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "character", r.data(), map[string]any{"id": 1, "name": "Ann"})
	}},
	{"category-statuses.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) == 0 {
			t.Fatalf("data = %v, want Kanka's default statuses", r.body["data"])
		}
	}},
	{"modules-organisation-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "organisation", r.data(), map[string]any{"id": 1, "name": "Guild"})
	}},
	{"organisation-members-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "member", r.data(), map[string]any{"id": 1, "organisation_id": 1, "character_id": 1, "role": "Captain", "pin_id": 2})
	}},
	{"organisation-members-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the member", r.body["data"])
		}
	}},
	{"organisation-members-update.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "member", r.data(), map[string]any{"id": 1, "role": "Admiral"})
	}},
	{"organisation-members-delete.json", nil},
	{"inventory-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "line", r.data(), map[string]any{"id": 1, "entity_id": 1, "name": "Rope", "amount": 2, "item_id": nil})
	}},
	{"inventory-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the line", r.body["data"])
		}
	}},
	{"inventory-update.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "line", r.data(), map[string]any{"id": 1, "amount": 3})
	}},
	{"inventory-delete.json", nil},
	{"modules-ability-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "ability", r.data(), map[string]any{"id": 1, "name": "Fireball", "charges": "3"})
	}},
	{"entity-abilities-create.json", func(t *testing.T, _ *store.Store, r response) {
		if rows := r.list(); len(rows) != 1 {
			t.Fatalf("data = %v, want the row", r.body["data"])
		}
	}},
	{"entity-abilities-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the row", r.body["data"])
		}
	}},
	{"entity-abilities-update.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "row", r.data(), map[string]any{"id": 1, "ability_id": 1, "charges": 1, "note": "daily"})
	}},
	{"entity-abilities-delete.json", nil},
}

func seeds(fs ...func(*testing.T, *store.Store)) []func(*testing.T, *store.Store) { return fs }

func (g replayGroup) seed(t *testing.T, st *store.Store) {
	t.Helper()
	for _, f := range g.seeds {
		f(t, st)
	}
}

func TestEventsReplayThroughLambdaHandler(t *testing.T) {
	for _, g := range replayGroups {
		t.Run(g.name, func(t *testing.T) {
			st, _ := dynamotest.NewStore(t)
			g.seed(t, st)
			replay(t, st, g.steps)
		})
	}
}

func TestEveryEventFileIsReplayed(t *testing.T) {
	replayed := slices.Clone(authorizerEvents)
	replayed = append(replayed, streamEvents...)
	for _, g := range replayGroups {
		for _, s := range g.steps {
			if slices.Contains(replayed, s.file) {
				t.Errorf("events/%s is replayed twice", s.file)
			}
			replayed = append(replayed, s.file)
		}
	}
	for _, f := range eventFiles(t) {
		if !slices.Contains(replayed, f) {
			t.Errorf("events/%s is replayed by no test: add it to a replay", f)
		}
	}
	for _, f := range replayed {
		if !slices.Contains(eventFiles(t), f) {
			t.Errorf("events/%s is replayed but does not exist", f)
		}
	}
}

// TestEventsAreConsistentWithTheirRoutes checks that each sample is what API Gateway would send
// for its route: routeKey a route of the template, path parameters matching the raw path,
// the authorizer context our authorizer produces, and a JSON body exactly on writes. And that
// every route of the template has a sample.
func TestEventsAreConsistentWithTheirRoutes(t *testing.T) {
	routes := loadTemplate(t).httpAPIRoutes(t)
	sampled := map[route]bool{}
	for _, f := range eventFiles(t) {
		if slices.Contains(authorizerEvents, f) || slices.Contains(streamEvents, f) {
			continue
		}
		t.Run(f, func(t *testing.T) {
			if !strings.HasSuffix(f, ".json") {
				t.Fatalf("events/%s: want .json", f)
			}
			ev := loadEvent(t, f)
			method, path, _ := strings.Cut(ev.RouteKey, " ")
			r := route{method, path}
			if _, ok := routes[r]; !ok {
				t.Fatalf("routeKey %q is not a route of template.yaml", ev.RouteKey)
			}
			sampled[r] = true
			rc := ev.RequestContext
			for _, c := range []struct{ what, got, want string }{
				{"version", ev.Version, "2.0"},
				{"requestContext.routeKey", rc.RouteKey, ev.RouteKey},
				{"requestContext.http.method", rc.HTTP.Method, cmp.Or(map[bool]string{true: rc.HTTP.Method}[method == "ANY"], method)},
				{"requestContext.http.path", rc.HTTP.Path, ev.RawPath},
				{"requestContext.stage", rc.Stage, "$default"},
				{"headers.host", ev.Headers["host"], rc.DomainName},
				{"headers.x-forwarded-proto", ev.Headers["x-forwarded-proto"], "https"},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if rc.RequestID == "" || rc.DomainName == "" {
				t.Error("requestContext needs requestId and domainName")
			}
			params, ok := matchPath(path, ev.RawPath)
			if !ok {
				t.Fatalf("rawPath %q does not match the route's path %q", ev.RawPath, path)
			}
			if !mapsEqual(params, ev.PathParameters) {
				t.Errorf("pathParameters = %v, want %v", ev.PathParameters, params)
			}
			if routes[r] == "McpFunction" {
				// No authorizer: the function reads the bearer token itself.
				if rc.Authorizer != nil {
					t.Errorf("an MCP event carries an authorizer context: %+v", rc.Authorizer)
				}
			} else if publicRoute(routes[r], path) {
				if rc.Authorizer != nil || ev.Headers["authorization"] != "" {
					t.Errorf("a public route's event carries authorization: %+v", rc.Authorizer)
				}
			} else if rc.Authorizer == nil || rc.Authorizer.Lambda["user_id"] != "1" {
				t.Errorf("requestContext.authorizer = %+v, want lambda.user_id \"1\" as the authorizer passes it", rc.Authorizer)
			}
			m := rc.HTTP.Method
			write := m == http.MethodPost || m == http.MethodPut || m == http.MethodPatch
			// An upload is multipart, base64-encoded by API Gateway as every binary body.
			multipart := strings.HasPrefix(ev.Headers["content-type"], "multipart/form-data; boundary=")
			switch {
			case write && multipart:
				if raw, err := base64.StdEncoding.DecodeString(ev.Body); !ev.IsBase64Encoded || err != nil || !strings.Contains(string(raw), "Content-Disposition: form-data") {
					t.Errorf("a multipart body must be base64-encoded form data (isBase64Encoded %v, %v)", ev.IsBase64Encoded, err)
				}
			case write && !json.Valid([]byte(ev.Body)):
				t.Errorf("body of a write must be JSON: %q", ev.Body)
			case write && ev.Headers["content-type"] != "application/json":
				t.Errorf("content-type = %q on a JSON body", ev.Headers["content-type"])
			case !write && ev.Body != "":
				t.Errorf("%s carries a body", m)
			}
		})
	}
	for r := range routes {
		if !sampled[r] {
			t.Errorf("route %s has no sample event in events/", r)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestEventWithoutAuthorizerUserIsUnauthenticated(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	seed(t, st)
	seedEntity(t, st)
	// A list of each HTTP function.
	for fn, file := range map[string]string{
		"LocationsFunction":    "locations-list.json",
		"CalendarsFunction":    "calendars-list.json",
		"EntityEventsFunction": "entity-events-list.json",
		"EntityNotesFunction":  "entity-notes-list.json",
		"EntitiesFunction":     "entities-list.json",
	} {
		h := functionHandlers[fn](st)
		for _, c := range []struct {
			name string
			ctx  map[string]any // nil: no authorizer context at all
		}{
			{"no authorizer context", nil},
			{"authorizer found no valid token", map[string]any{}},
			{"user id not a number", map[string]any{"user_id": "admin"}},
			{"user id zero", map[string]any{"user_id": "0"}},
		} {
			t.Run(fn+"/"+c.name, func(t *testing.T) {
				ev := loadEvent(t, file)
				if c.ctx == nil {
					ev.RequestContext.Authorizer = nil
				} else {
					ev.RequestContext.Authorizer.Lambda = c.ctx
				}
				r := invoke(t, h, ev)
				if r.StatusCode != http.StatusUnauthorized || r.body["message"] != "Unauthenticated." || len(r.body) != 1 {
					t.Errorf("got %d %s, want 401 {\"message\":\"Unauthenticated.\"}", r.StatusCode, r.Body)
				}
			})
		}
	}
}

func TestEventWithMalformedJSONBodyIsUnprocessable(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	seed(t, st)
	h := functionHandlers["LocationsFunction"](st)
	for _, body := range []string{`{"name": "Saltmarsh",`, `not json`, `{"name": "Saltmarsh"} trailing`} {
		ev := loadEvent(t, "locations-create.json")
		ev.Body = body
		delete(ev.Headers, "content-length")
		r := invoke(t, h, ev)
		if r.StatusCode != http.StatusUnprocessableEntity || str(r.body["message"]) == "" {
			t.Errorf("body %q: got %d %s, want 422 with a message", body, r.StatusCode, r.Body)
		}
	}
	// A failed request changes nothing.
	if _, err := locstore.New(st).GetLocation(context.Background(), 1, 1); !errors.Is(err, apperr.ErrNotFound) {
		t.Errorf("a location exists after malformed creates: %v", err)
	}
	res, err := locstore.New(st).ListLocations(context.Background(), 1, domain.Filter{}, false, domain.PageRequest{Page: 1, Limit: 10})
	if err != nil || res.Total != 0 || len(res.Items) != 0 {
		t.Errorf("locations after malformed creates: total %d, %d items, err %v", res.Total, len(res.Items), err)
	}
}
