package deploy_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarmonth"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/campaigns"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/entityabilities"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/inventory"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/maps"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// lambdaHandler is what a family's Lambda main hands to lambda.Start.
type lambdaHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// lambdaEnv is the environment template.yaml gives the functions (TABLE_NAME is the store's).
// REQUEST_TIMEOUT is raised above the production deadline so that no replay depends on the
// test machine's speed.
// RATE_LIMIT is above what one replay of every sample event sends as user 1 within a minute.
var lambdaEnv = map[string]string{"RATE_LIMIT": "120", "REQUEST_TIMEOUT": "30s"}

// shareKey signs the sample events' share links: env.json's, which the functions' binaries
// read under make local-invoke.
var shareKey = []byte("local-share-link-key-for-sam-local-only-0123456789")

// familyRegisters are the family functions and the Register each main mounts: the template's
// routes are checked against what these register (codeRoutes).
var familyRegisters = map[string]func(*httpapi.API, *store.Store){
	"LocationsFunction": func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		tags.Register(api, st)
	},
	"MapsFunction": func(api *httpapi.API, st *store.Store) {
		maps.Register(api, st)
		api.SetImages(images.New(imagework.New(testBucket(), st, imagework.Options{}), st))
	},
	"CalendarsFunction": func(api *httpapi.API, st *store.Store) {
		calendars.Register(api, st)
		calendardays.Register(api, st)
		calendarmonth.Register(api, st, shareKey)
		transfer.Register(api, st)
		calendarweather.Register(api, st)
	},
	"EntityEventsFunction": func(api *httpapi.API, st *store.Store) { entityevents.Register(api, st) },
	"EntityNotesFunction": func(api *httpapi.API, st *store.Store) {
		entitynotes.Register(api, st)
		attributes.Register(api, st)
		relations.Register(api, st)
	},
	"EntitiesFunction": func(api *httpapi.API, st *store.Store) {
		entities.Register(api, st)
		campaigns.Register(api, st)
		modules.Register(api, st)
		inventory.Register(api, st)
		entityabilities.Register(api, st)
	},
	"WebhookRoutesFunction": registerWebhooks,
	"ImagesFunction":        registerImages,
}

// registerImages is functions/images' wiring over the local S3 server `make test` starts
// (LOREKEEP_TEST_S3; without it the bucket is unreachable and the image events fail).
func registerImages(api *httpapi.API, st *store.Store) {
	svc := images.New(imagework.New(testBucket(), st, imagework.Options{}), st)
	api.SetImages(svc)
	images.Register(api, st, svc)
}

// testBucket is the events' bucket on the local S3 server.
func testBucket() *imagestore.Bucket {
	ep := cmp.Or(os.Getenv("LOREKEEP_TEST_S3"), "http://127.0.0.1:1")
	b, err := imagestore.Open(imagestore.Config{Bucket: "deploy-events", Endpoint: ep})
	if err == nil {
		err = b.Ensure(context.Background())
	}
	if err != nil {
		panic("the test bucket: " + err.Error())
	}
	return b
}

// functionHandlers build each HTTP function's handler exactly as its main does, over st.
var functionHandlers = func() map[string]func(st *store.Store) lambdaHandler {
	m := map[string]func(st *store.Store) lambdaHandler{"MetaFunction": metaHandler, "McpFunction": mcpHandler}
	for fn, register := range familyRegisters {
		m[fn] = familyHandler(register)
	}
	// ImagesFunction's main hands lambda.Start imagework.LambdaHandler, which takes raw JSON
	// (a job or an API Gateway request): the events go through it as Lambda sends them.
	m["ImagesFunction"] = func(st *store.Store) lambdaHandler {
		h := imagework.LambdaHandler(imagework.HTTPHandler(familyHandler(registerImages)(st)), nil)
		return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			raw, err := json.Marshal(ev)
			if err != nil {
				return events.APIGatewayV2HTTPResponse{}, err
			}
			out, err := h(ctx, raw)
			res, _ := out.(events.APIGatewayV2HTTPResponse)
			return res, err
		}
	}
	return m
}()

// metaHandler is functions/meta's handler: the public routes, no storage.
func metaHandler(*store.Store) lambdaHandler { return lambdaapi.Handler(metaAPI()) }

func metaAPI() *httpapi.API {
	api := httpapi.New(lambdaapi.Options(func(k string) string { return lambdaEnv[k] }, nil))
	apidoc.Register(api)
	return api
}

// familyHandler is what a family's main builds at cold start: the shared API with the
// authorizer's identity, the family's routes, the Lambda adapter.
func familyHandler(register func(*httpapi.API, *store.Store)) func(st *store.Store) lambdaHandler {
	return func(st *store.Store) lambdaHandler {
		opts := lambdaapi.Options(func(k string) string { return lambdaEnv[k] }, st)
		opts.SharedRate = st
		api := httpapi.New(opts)
		register(api, st)
		return lambdaapi.Handler(api)
	}
}

// seed makes the state the sample events assume on a fresh table: user 1 ("admin") owning
// campaign 1.
func seed(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	u, err := campstore.New(st).EnsureUser(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "Azure Coast", OwnerID: u.ID})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != 1 || c.ID != 1 {
		t.Fatalf("a fresh table gave user %d and campaign %d; the sample events use 1 and 1", u.ID, c.ID)
	}
}

// readEvent reads events/<name> as raw JSON.
func readEvent(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// decodeStrict decodes raw into v, refusing fields v does not know (a misspelt event field
// would otherwise be silently dropped).
func decodeStrict(t testing.TB, name string, raw []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("events/%s: %v", name, err)
	}
}

func loadEvent(t testing.TB, name string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	var ev events.APIGatewayV2HTTPRequest
	decodeStrict(t, name, readEvent(t, name), &ev)
	return ev
}

// response is a Lambda response, decoded.
type response struct {
	events.APIGatewayV2HTTPResponse
	body map[string]any
}

func (r response) header(name string) string {
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, v := range r.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func (r response) data() map[string]any { m, _ := r.body["data"].(map[string]any); return m }
func (r response) list() []any          { l, _ := r.body["data"].([]any); return l }

// invoke runs ev through h as Lambda would and checks what every response must have: no Go
// error, Content-Type exactly application/json, the rate limit headers, API Gateway's request
// id, and a JSON object body (none for HEAD).
func invoke(t *testing.T, h lambdaHandler, ev events.APIGatewayV2HTTPRequest) response {
	t.Helper()
	res, err := h(context.Background(), ev)
	if err != nil {
		t.Fatalf("%s %s: the handler returned an error to Lambda: %v", ev.RequestContext.HTTP.Method, ev.RawPath, err)
	}
	r := response{APIGatewayV2HTTPResponse: res}
	// What the Lambda answers is what the OpenAPI document says, as for the local server.
	req := httptest.NewRequest(ev.RequestContext.HTTP.Method, ev.RawPath+"?"+ev.RawQueryString, nil)
	header := http.Header{}
	for k, v := range res.Headers {
		header.Set(k, v)
	}
	apitest.CheckOpenAPI(t, req, res.StatusCode, header, []byte(res.Body))
	if strings.HasPrefix(ev.RawPath, apidoc.DocsPath) { // the docs page and its assets are not JSON
		if res.StatusCode != http.StatusOK || res.IsBase64Encoded {
			t.Errorf("%s %s: %d (base64 %v)", ev.RequestContext.HTTP.Method, ev.RawPath, res.StatusCode, res.IsBase64Encoded)
		}
		return r
	}
	if ct := r.header("Content-Type"); ct == "image/svg+xml" || strings.HasPrefix(ct, "text/html") && ev.Headers["accept"] == "text/html" {
		return r // the month page and its image (the OpenAPI check above read their type)
	}
	if ct := r.header("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q, want exactly application/json", ev.RequestContext.HTTP.Method, ev.RawPath, ct)
	}
	if id := r.header("X-Request-Id"); id != ev.RequestContext.RequestID {
		t.Errorf("X-Request-Id = %q, want API Gateway's request id %q", id, ev.RequestContext.RequestID)
	}
	body := res.Body
	if res.IsBase64Encoded {
		t.Errorf("%s %s: body is base64-encoded; JSON should go as text", ev.RequestContext.HTTP.Method, ev.RawPath)
	}
	if ev.RequestContext.HTTP.Method == http.MethodHead {
		if body != "" {
			t.Errorf("HEAD %s: body %q, want none", ev.RawPath, body)
		}
		return r
	}
	if err := json.Unmarshal([]byte(body), &r.body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %q", ev.RequestContext.HTTP.Method, ev.RawPath, body)
	}
	if _, ok := r.body["message"]; r.StatusCode >= 400 && !ok {
		t.Errorf("%s %s: error %d without a message: %s", ev.RequestContext.HTTP.Method, ev.RawPath, r.StatusCode, body)
	}
	return r
}

// hasFields checks that obj holds want's fields with want's values (compared as JSON).
func hasFields(t *testing.T, what string, obj map[string]any, want map[string]any) {
	t.Helper()
	norm := func(v any) any {
		b, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(b, &out)
		return out
	}
	for k, w := range want {
		got, ok := obj[k]
		if !ok {
			t.Errorf("%s: no field %q in %v", what, k, obj)
			continue
		}
		if !reflect.DeepEqual(got, norm(w)) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, got, norm(w))
		}
	}
}

// matchPath matches a route path (with {params}) against a concrete path.
func matchPath(pattern, path string) (map[string]string, bool) {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	params := map[string]string{}
	// A greedy {name+} last segment takes one or more segments, as API Gateway's does.
	if last := ps[len(ps)-1]; strings.HasSuffix(last, "+}") {
		if len(xs) < len(ps) || strings.Join(xs[len(ps)-1:], "") == "" {
			return nil, false
		}
		params[strings.Trim(last, "{+}")] = strings.Join(xs[len(ps)-1:], "/")
		ps, xs = ps[:len(ps)-1], xs[:len(ps)-1]
	}
	if len(ps) != len(xs) {
		return nil, false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return nil, false
			}
			params[strings.Trim(p, "{}")] = xs[i]
		} else if p != xs[i] {
			return nil, false
		}
	}
	return params, true
}

// eventFiles lists events/*.json.
func eventFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "events", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}
