package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/lorekeep/lorekeep/shared/authorizer"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// iamRecorder records the IAM actions that the DynamoDB calls made through an SDK configuration
// need. A transaction needs the actions of its items, not one of its own.
type iamRecorder struct {
	mu      sync.Mutex
	actions map[string]bool
	index   bool // some Query read an index
}

func (r *iamRecorder) attach(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("lorekeep-iam-actions", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			r.record(s.ID(), in.Parameters)
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
	})
}

func (r *iamRecorder) record(op string, params any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.actions == nil {
		r.actions = map[string]bool{}
	}
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				r.actions["dynamodb:PutItem"] = true
			case it.Update != nil:
				r.actions["dynamodb:UpdateItem"] = true
			case it.Delete != nil:
				r.actions["dynamodb:DeleteItem"] = true
			case it.ConditionCheck != nil:
				r.actions["dynamodb:ConditionCheckItem"] = true
			}
		}
	case *dynamodb.TransactGetItemsInput:
		r.actions["dynamodb:GetItem"] = true
	case *dynamodb.QueryInput:
		r.actions["dynamodb:Query"] = true
		if in.IndexName != nil {
			r.index = true
		}
	default:
		r.actions["dynamodb:"+op] = true
	}
}

func (r *iamRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions, r.index = map[string]bool{}, false
}

func (r *iamRecorder) used() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.actions))
	for a := range r.actions {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// TestPoliciesCoverEveryDynamoDBCall replays the sample events (and, per function, a filtered
// list page, which makes guregu/dynamo describe the table) while recording the DynamoDB calls each function
// makes: its policy must allow exactly those actions, no fewer (AccessDenied on AWS, where no
// test runs) and no more (least privilege).
func TestPoliciesCoverEveryDynamoDBCall(t *testing.T) {
	tpl := loadTemplate(t)
	rec := &iamRecorder{}
	st, stCfg := dynamotest.NewStore(t, rec.attach)
	seed(t, st)
	ctx := context.Background()

	// The authorizer.
	now := time.Now()
	token := mintToken(t, st, 1, 0, now)
	rec.reset()
	if _, err := authorizer.Handler(st.Tokens(), func() time.Time { return now })(ctx, authorizerEvent(t, token)); err != nil {
		t.Fatal(err)
	}
	checkPolicy(t, tpl, "AuthorizerFunction", rec)

	// The locations function: every sample event, then a filtered list that fills its page.
	// The entity image events go to ImagesFunction, whose calls are recorded on their own.
	rec.reset()
	imagesRec := &iamRecorder{}
	imagesSt, err := store.Open(ctx, stCfg, imagesRec.attach)
	if err != nil {
		t.Fatal(err)
	}
	replayOn(t, st, map[string]*store.Store{"ImagesFunction": imagesSt}, locationsReplay)
	checkPolicy(t, tpl, "ImagesFunction", imagesRec)
	h := functionHandlers["LocationsFunction"](st)
	for _, name := range []string{"Salt flats", "Saltmarsh"} {
		ev := loadEvent(t, "locations-create.json")
		ev.Body = `{"name":"` + name + `"}`
		delete(ev.Headers, "content-length")
		if r := invoke(t, h, ev); r.StatusCode != http.StatusOK {
			t.Fatalf("create %s: %d %s", name, r.StatusCode, r.Body)
		}
	}
	ev := loadEvent(t, "locations-list.json")
	ev.RawQueryString = "name=salt&limit=1"
	ev.QueryStringParameters = map[string]string{"name": "salt", "limit": "1"}
	if r := invoke(t, h, ev); r.StatusCode != http.StatusOK || len(r.list()) != 1 || at(r.body, "links", "next") == nil {
		t.Fatalf("filtered list: %d %s, want one item and a next link", r.StatusCode, r.Body)
	}
	checkPolicy(t, tpl, "LocationsFunction", rec)

	// The maps function: its sample events on a table of their own, then a filtered list that
	// fills its page.
	mrec := &iamRecorder{}
	mst, _ := dynamotest.NewStore(t, mrec.attach)
	seed(t, mst)
	mrec.reset()
	replay(t, mst, mapsReplay)
	mh := functionHandlers["MapsFunction"](mst)
	for _, body := range []string{`{"name":"Salt flats"}`, `{"name":"Saltmarsh","map_id":2}`} { // the second under the first
		ev := loadEvent(t, "maps-create.json")
		ev.Body = body
		delete(ev.Headers, "content-length")
		if r := invoke(t, mh, ev); r.StatusCode != http.StatusOK {
			t.Fatalf("create map %s: %d %s", body, r.StatusCode, r.Body)
		}
	}
	mev := loadEvent(t, "maps-list.json")
	mev.RawQueryString = "name=salt&limit=1"
	mev.QueryStringParameters = map[string]string{"name": "salt", "limit": "1"}
	if r := invoke(t, mh, mev); r.StatusCode != http.StatusOK || len(r.list()) != 1 || at(r.body, "links", "next") == nil {
		t.Fatalf("filtered maps list: %d %s, want one item and a next link", r.StatusCode, r.Body)
	}
	checkPolicy(t, tpl, "MapsFunction", mrec)

	// The calendars and entity functions share one table (an event needs a calendar, events and
	// notes an entity): each function's handler records its calls through a store of its own.
	est, cfg := dynamotest.NewStore(t)
	seed(t, est)
	seedEntity(t, est)
	recs := map[string]*iamRecorder{}
	fnStores := map[string]*store.Store{}
	for _, fn := range []string{"CalendarsFunction", "EntityEventsFunction", "EntityNotesFunction", "EntitiesFunction"} {
		recs[fn] = &iamRecorder{}
		s, err := store.Open(ctx, cfg, recs[fn].attach)
		if err != nil {
			t.Fatal(err)
		}
		fnStores[fn] = s
	}
	replayOn(t, est, fnStores, entitiesReplay)
	// Then, for each, a filtered list that fills its page: calendars by name, and an entity's
	// events and notes (their lists are always filtered by visibility).
	fill := func(fn, create, list string, bodies []map[string]any, query map[string]string) {
		t.Helper()
		h := functionHandlers[fn](fnStores[fn])
		for _, b := range bodies {
			ev := loadEvent(t, create)
			var body map[string]any
			if err := json.Unmarshal([]byte(ev.Body), &body); err != nil {
				t.Fatal(err)
			}
			maps.Copy(body, b)
			raw, _ := json.Marshal(body)
			ev.Body = string(raw)
			delete(ev.Headers, "content-length")
			if r := invoke(t, h, ev); r.StatusCode != http.StatusOK {
				t.Fatalf("%s with %v: %d %s", create, b, r.StatusCode, r.Body)
			}
		}
		ev := loadEvent(t, list)
		ev.QueryStringParameters = query
		v := url.Values{}
		for k, q := range query {
			v.Set(k, q)
		}
		ev.RawQueryString = v.Encode()
		if r := invoke(t, h, ev); r.StatusCode != http.StatusOK || len(r.list()) != 1 || at(r.body, "links", "next") == nil {
			t.Fatalf("%s?%s: %d %s, want one item and a next link", list, ev.RawQueryString, r.StatusCode, r.Body)
		}
	}
	fill("CalendarsFunction", "calendars-create.json", "calendars-list.json",
		[]map[string]any{{"name": "Tide tables"}, {"name": "Tide almanac"}}, map[string]string{"name": "tide", "limit": "1"})
	// A privacy change re-places the events' links of the calendar's entity, on condition of
	// the calendar's version (calendar 2 is the one calendars-import.json made).
	for _, private := range []bool{true, false} {
		ev := loadEvent(t, "calendars-update-patch.json")
		ev.Body = fmt.Sprintf(`{"is_private":%v}`, private)
		ev.RawPath = strings.Replace(ev.RawPath, "/calendars/1", "/calendars/2", 1)
		ev.RequestContext.HTTP.Path = ev.RawPath
		ev.PathParameters["proxy"] = "2"
		delete(ev.Headers, "content-length")
		if r := invoke(t, functionHandlers["CalendarsFunction"](fnStores["CalendarsFunction"]), ev); r.StatusCode != http.StatusOK {
			t.Fatalf("calendar 2 is_private %v: %d %s", private, r.StatusCode, r.Body)
		}
	}
	// Calendar 1 went with calendars-delete.json; calendar 2 is the one calendars-import.json made.
	fill("EntityEventsFunction", "entity-events-create.json", "entity-events-list.json",
		[]map[string]any{{"name": "Spring tide", "calendar_id": 2}, {"name": "Neap tide", "calendar_id": 2}}, map[string]string{"limit": "1"})
	fill("EntityNotesFunction", "entity-notes-create.json", "entity-notes-list.json",
		[]map[string]any{{"name": "Tide lore"}, {"name": "Net mending"}}, map[string]string{"limit": "1"})
	// Entities by type: the town and the two calendars made above.
	fill("EntitiesFunction", "", "entities-list.json", nil, map[string]string{"types": "location,calendar", "limit": "1"})
	for _, fn := range []string{"CalendarsFunction", "EntityEventsFunction", "EntityNotesFunction", "EntitiesFunction"} {
		checkPolicy(t, tpl, fn, recs[fn])
	}
}

func checkPolicy(t *testing.T, tpl cfn, fn string, rec *iamRecorder) {
	t.Helper()
	used, granted := rec.used(), grantedActions(t, tpl, fn)
	for _, a := range used {
		if !slices.Contains(granted, a) {
			t.Errorf("%s calls need %s, which its policy does not grant (AccessDenied on AWS)", fn, a)
		}
	}
	for _, a := range granted {
		if !slices.Contains(used, a) {
			t.Errorf("%s's policy grants %s, which no replayed call needs", fn, a)
		}
	}
	indexArn := map[string]any{"Fn::Sub": "${Table.Arn}/index/*"}
	if rec.index {
		found := false
		for _, st := range tpl.statements(t, fn) {
			if slices.ContainsFunc(asList(st["Action"]), func(a any) bool { return a == "dynamodb:Query" }) &&
				slices.ContainsFunc(asList(st["Resource"]), func(r any) bool { return reflect.DeepEqual(r, indexArn) }) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s queries an index, but no statement grants dynamodb:Query on ${Table.Arn}/index/*", fn)
		}
	} else {
		for i, st := range tpl.statements(t, fn) {
			if slices.ContainsFunc(asList(st["Resource"]), func(r any) bool { return reflect.DeepEqual(r, indexArn) }) {
				t.Errorf("%s statement %d grants the table's indexes, which no replayed call reads", fn, i)
			}
		}
	}
	t.Logf("%s uses %s", fn, strings.Join(used, ", "))
}
