// Package apitest runs a family's handlers on a real HTTP server over DynamoDB Local, with a
// private campaign whose members hold every role, a public campaign, and an outsider: the
// cast of every access test.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/token"
)

// Env is a running API and the people who call it.
type Env struct {
	T       testing.TB
	Store   *store.Store
	Config  store.Config
	Server  *httptest.Server
	API     *httpapi.API
	Counter *dynamotest.Counter // DynamoDB calls of the API, authentication aside

	checkOpenAPI bool // every response is checked against the OpenAPI document

	Campaign       int64 // private campaign
	PublicCampaign int64
	OtherCampaign  int64 // private campaign the cast does not belong to (its admin is Stranger)

	Admin, Admin2, Member, Member2, Viewer, Outsider, Stranger   string // tokens
	AdminID, Admin2ID, MemberID, Member2ID, ViewerID, OutsiderID int64
}

// TestTimeout is the per-request deadline of test APIs: far above any legitimate request, so
// that no test depends on the machine's speed.
const TestTimeout = 30 * time.Second

// Option adjusts an Env before it starts.
type Option func(*options)

type options struct {
	sdk       []func(*aws.Config)
	api       []func(*httpapi.Options)
	noOpenAPI bool
}

// WithoutOpenAPI skips checking responses against the OpenAPI document: only for tests that
// register routes of their own.
func WithoutOpenAPI() Option { return func(o *options) { o.noOpenAPI = true } }

// WithSDK adjusts the SDK configuration of the API's store (not of authentication), e.g. to put
// a faultproxy in front of DynamoDB Local.
func WithSDK(f func(*aws.Config)) Option { return func(o *options) { o.sdk = append(o.sdk, f) } }

// WithAPI adjusts the API's options, e.g. its logger.
func WithAPI(f func(*httpapi.Options)) Option { return func(o *options) { o.api = append(o.api, f) } }

// WithCachedAuth caches each Authorization header's user, as API Gateway caches the
// authorizer's answer: the API then reads no token per request, as a function on AWS does not
// (PairRaw measures the function's read path against its own DynamoDB calls only).
func WithCachedAuth() Option {
	return WithAPI(func(o *httpapi.Options) {
		identify := o.Identify
		var cache sync.Map
		o.Identify = func(r *http.Request) (int64, error) {
			h := r.Header.Get("Authorization")
			if uid, ok := cache.Load(h); ok {
				return uid.(int64), nil
			}
			uid, err := identify(r)
			if err == nil {
				cache.Store(h, uid)
			}
			return uid, err
		}
	})
}

// New starts an API with register's routes. register takes the store as the port its family
// declares (S), or as *store.Store. tweak (optional) adjusts the API's SDK configuration, e.g.
// to put a faultproxy between the API and DynamoDB Local.
func New[S any](t testing.TB, register func(*httpapi.API, S), tweak ...func(*aws.Config)) *Env {
	t.Helper()
	opts := make([]Option, len(tweak))
	for i, f := range tweak {
		opts[i] = WithSDK(f)
	}
	return NewWith(t, register, opts...)
}

// NewWith is New with options (the API's logger or deadline, the SDK configuration, no
// OpenAPI check).
func NewWith[S any](t testing.TB, register func(*httpapi.API, S), opts ...Option) *Env {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	e := &Env{T: t, Counter: &dynamotest.Counter{}, checkOpenAPI: !o.noOpenAPI}
	e.Store, e.Config = dynamotest.NewStore(t, append([]func(*aws.Config){func(c *aws.Config) { e.Counter.Attach(c) }}, o.sdk...)...)
	ctx := context.Background()
	user := func(name string) (int64, string) {
		u, err := campstore.New(e.Store).EnsureUser(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, e.Token(u.ID, 0)
	}
	campaign := func(ownerID int64, public bool, boost domain.Boost) int64 {
		c, err := campstore.New(e.Store).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: ownerID, IsPublic: public, Boost: boost})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	var strangerID int64
	e.AdminID, e.Admin = user("admin")
	e.Admin2ID, e.Admin2 = user("admin2")
	e.MemberID, e.Member = user("member")
	e.Member2ID, e.Member2 = user("member2")
	e.ViewerID, e.Viewer = user("viewer")
	e.OutsiderID, e.Outsider = user("outsider")
	strangerID, e.Stranger = user("stranger")
	e.Campaign = campaign(e.AdminID, false, domain.BoostNone)
	e.PublicCampaign = campaign(e.AdminID, true, domain.BoostNone)
	e.OtherCampaign = campaign(strangerID, false, domain.BoostNone)
	for _, cid := range []int64{e.Campaign, e.PublicCampaign} {
		for uid, role := range map[int64]domain.Role{e.Admin2ID: domain.RoleAdmin, e.MemberID: domain.RoleMember, e.Member2ID: domain.RoleMember, e.ViewerID: domain.RoleViewer} {
			if err := campstore.New(e.Store).SetMember(ctx, domain.Membership{CampaignID: cid, UserID: uid, Role: role}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Authentication reads tokens through a store the counter does not watch: on AWS that read is
	// the authorizer Lambda's, cached by API Gateway, not the function's.
	auth, err := store.Open(ctx, e.Config)
	if err != nil {
		t.Fatal(err)
	}
	// TestTimeout, not the production deadline: on a loaded test machine a legitimate request
	// may take longer than 1.8 s; the deadline's own tests set it back.
	apiOpts := httpapi.Options{Identify: httpapi.BearerAuth(auth.Tokens(), time.Now), FieldSet: httpapi.BearerFieldSet, Campaigns: e.Store,
		RateLimit: 1 << 30, Timeout: TestTimeout}
	for _, f := range o.api {
		f(&apiOpts)
	}
	e.API = httpapi.New(apiOpts)
	register(e.API, any(e.Store).(S)) // *store.Store serves every family's port
	e.Server = httptest.NewServer(e.API)
	t.Cleanup(e.Server.Close)
	return e
}

// For is e reporting to t: a subtest's view of its parent's Env (the same API, store and cast),
// so that a failed request fails the subtest that made it, from the subtest's own goroutine, as
// t.Fatal must. Subtests that run in parallel on one Env must only read what the others do not
// write.
func (e *Env) For(t testing.TB) *Env {
	c := *e
	c.T = t
	return &c
}

// Bench measures GET path through the API handler itself (as the Lambda adapter calls it),
// against DynamoDB Local, as the admin.
func (e *Env) Bench(b *testing.B, path string) {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+e.Admin)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		e.API.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// Token issues a token for uid (ttl 0: never expires).
func (e *Env) Token(uid int64, ttl time.Duration) string {
	return e.TokenWithFieldSet(uid, ttl, token.FieldsAll)
}

// TokenWithFieldSet issues a token for uid bound to field set fs.
func (e *Env) TokenWithFieldSet(uid int64, ttl time.Duration, fs token.FieldSet) string {
	raw, tok, err := token.NewWithFieldSet(uid, ttl, fs, time.Now())
	if err != nil {
		e.T.Fatal(err)
	}
	if err := e.Store.Tokens().Put(context.Background(), tok); err != nil {
		e.T.Fatal(err)
	}
	return raw
}

// Response is a decoded API response.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data is the body's "data" object.
func (r Response) Data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

// List is the body's "data" array.
func (r Response) List() []any { l, _ := r.Body["data"].([]any); return l }

// Errors are the 422 field errors.
func (r Response) Errors() map[string]any { m, _ := r.Body["errors"].(map[string]any); return m }

// Do sends a request with a JSON body (a string is sent as is) and decodes the answer.
func (e *Env) Do(method, path, token string, body any) Response {
	e.T.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case []byte:
		rd, ct = bytes.NewReader(b), "application/json"
	default:
		j, _ := json.Marshal(b)
		rd, ct = bytes.NewReader(j), "application/json"
	}
	return e.DoRaw(method, path, token, ct, rd)
}

// DoRaw sends a request with any content type.
func (e *Env) DoRaw(method, path, token, contentType string, body io.Reader) Response {
	e.T.Helper()
	return e.DoHeader(method, path, token, contentType, body, nil)
}

// DoHeader is DoRaw with request headers besides (If-None-Match...).
func (e *Env) DoHeader(method, path, token, contentType string, body io.Reader, header http.Header) Response {
	e.T.Helper()
	req, err := http.NewRequest(method, e.Server.URL+path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if e.checkOpenAPI {
		CheckOpenAPI(e.T, req, res.StatusCode, res.Header, raw)
	}
	out := Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 && method != http.MethodHead {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			e.T.Fatalf("%s %s: body is not a JSON object: %q", method, path, raw)
		}
	}
	return out
}

// Path builds a path under campaign cid.
func Path(cid int64, rest string) string {
	return "/api/1.0/campaigns/" + itoa(cid) + rest
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
