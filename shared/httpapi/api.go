// Package httpapi is the HTTP contract every resource family shares: routing under the campaign
// prefix, authentication, campaign access, body decoding, the JSON envelope, pagination, errors,
// CORS and rate limits. A family only registers handlers; the Lambda adapter, the local server
// and the tests all mount the same http.Handler.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/telemetry"
	"github.com/lorekeep/lorekeep/shared/token"
)

// Prefix is the path every campaign route lives under.
const Prefix = "/api/1.0/campaigns/{campaign_id}"

// AccountPrefix is the path of the routes about the caller rather than one campaign (its
// profile, its campaigns, Kanka's module list): HandleAccount.
const AccountPrefix = "/api/1.0"

// Identifier authenticates a request and returns the caller's user id (ErrUnauthenticated when
// it cannot). Locally it checks the bearer token; on Lambda it reads the authorizer's verdict.
type Identifier func(r *http.Request) (int64, error)

// Campaigns reads a campaign and a user's membership in it, with what the route reads ahead (the
// returned context carries it for the request's later reads), and the records of a user's
// Idempotency-Keys in it.
type Campaigns interface {
	CampaignAccess(ctx context.Context, cid, uid int64, ahead ...domain.Ref) (context.Context, *domain.Campaign, *domain.Membership, error)
	// Replay reads the live record of a key (nil when there is none).
	Replay(ctx context.Context, cid, uid int64, key string) (*domain.Replay, error)
	// SaveReplay stores the outcome of a keyed write that sent no transaction of its own.
	SaveReplay(ctx context.Context, kw *domain.KeyedWrite, body []byte) error
}

// Ahead names what a route will read, from its path, so that the campaign access read fetches
// it too: a show costs one round trip, a list page two.
type Ahead func(r *http.Request) []domain.Ref

// ReadAhead is the common Ahead: a read of kind whose record id is the path value idName, under
// the parent in path value parentName ("" for none).
func ReadAhead(kind domain.Read, idName, parentName string) Ahead {
	return func(r *http.Request) []domain.Ref {
		ref := domain.Ref{Read: kind}
		for _, v := range []struct {
			name string
			dst  *int64
		}{{idName, &ref.ID}, {parentName, &ref.Parent}} {
			if v.name == "" {
				continue
			}
			id, err := strconv.ParseInt(r.PathValue(v.name), 10, 64)
			if err != nil || id < 1 || id > domain.MaxID {
				return nil // the handler answers 404 without reading
			}
			*v.dst = id
		}
		return []domain.Ref{ref}
	}
}

// Options configure an API.
type Options struct {
	Identify Identifier
	// FieldSet reads the field set the caller's token is bound to (BearerFieldSet beside
	// BearerAuth, lambdaapi.AuthorizerFieldSet on Lambda); nil: every answer carries every field.
	FieldSet  FieldSetReader
	Campaigns Campaigns
	// RateLimit is the size of each caller's token bucket, refilled at RateLimit per minute
	// (default 90; see ratelimit.go).
	RateLimit int
	// SharedRate, when set, keeps authenticated users' buckets where every instance shares
	// them (on Lambda: the table). Without it, and for callers known by their address only,
	// each process keeps its own.
	SharedRate RateTaker
	// TrustForwardedHeaders makes links follow X-Forwarded-Proto and X-Forwarded-Host: set it
	// only behind a proxy that sets them itself, since a client can send anything there.
	TrustForwardedHeaders bool
	Now                   func() time.Time
	// Images reads and stores the images writes bring (nil: the function serves none).
	Images Images
	// ImageBaseURL is where stored images are read (CloudFront's domain; locally the bucket's
	// address): image_full and image_thumb are under it.
	ImageBaseURL string
	// Timeout is the per-request deadline (DefaultTimeout when zero, none when negative).
	Timeout time.Duration
	Logger  *slog.Logger // the request log (slog.Default() when nil)
}

// API is the shared front of every family.
type API struct {
	opts    Options
	mux     *http.ServeMux
	methods map[string][]string // path pattern -> methods registered on it
	limiter *memoryRates
	public  *http.ServeMux // routes without a token (HandlePublic)
	// publicPatterns are the patterns of public, as registered.
	publicPatterns []string
	// shadowing are the literal paths registered beside a wildcard one (HandleShadowing); their
	// 405 fallbacks are registered once every route is known (fallbacks).
	shadowing []string
	fallbacks sync.Once
}

// New builds an API; families then Handle their routes on it.
func New(opts Options) *API {
	if opts.RateLimit <= 0 {
		opts.RateLimit = 90
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	a := &API{opts: opts, mux: http.NewServeMux(), methods: map[string][]string{}, limiter: &memoryRates{tats: map[string]time.Time{}}}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeError(w, r, apperr.ErrNotFound) })
	return a
}

// Request is what a family handler receives: the HTTP request and the caller's access to the
// campaign in the path, already checked.
type Request struct {
	*http.Request
	Access domain.Access
	// Campaign is the campaign of the path as the access read it (nil outside a campaign).
	Campaign *domain.Campaign
	// RateLimit is the caller's requests per minute (Options.RateLimit).
	RateLimit int
	now       time.Time
	// query is the query string parsed once (parseQuery): filters, paging and links read it.
	query url.Values
	// trustForwarded: Options.TrustForwardedHeaders.
	trustForwarded bool
	// input is the write body, decoded once (Input).
	input    domain.Input
	inputErr error
	decoded  bool
	// log is Options.Logger, for what a request reports beside its one request line.
	log *slog.Logger
	// images and imageBase: Options.Images and Options.ImageBaseURL.
	images    Images
	imageBase string
	image     *memoImage
	// imageDeadline ends the longer deadline AllowImageTime gave (its timer, else).
	imageDeadline context.CancelFunc
	// removed is what a `?removed=1` list's page answers beside its rows (Deletions).
	removed *removedRead
}

func (r *Request) logger() *slog.Logger {
	if r.log != nil {
		return r.log
	}
	return slog.Default()
}

// HandlerFunc handles one route and returns the reply to render, or an error to map.
type HandlerFunc func(r *Request) (Reply, error)

// Handle registers fn for method and a path relative to the campaign prefix, e.g.
// Handle("GET", "/locations/{id}", fn). GET routes serve HEAD too; every other method writes,
// so the caller's write access is checked here, before fn runs. ahead declares what fn reads
// first, read with the campaign access.
func (a *API) Handle(method, path string, fn HandlerFunc, ahead ...Ahead) {
	a.handle(method, Prefix+path, fn, true, ahead)
}

// HandleAccount registers a read (GET and HEAD) outside the campaign prefix that needs a token
// but no campaign, at AccountPrefix+path (e.g. "/profile"): the handler's Request.Access holds
// the caller's user id only, and it reads nothing ahead.
func (a *API) HandleAccount(path string, fn HandlerFunc) {
	a.handle(http.MethodGet, AccountPrefix+path, fn, true, nil)
}

// HandleShadowing is Handle for a literal path beside a wildcard one of the same shape
// ("/calendars/presets" beside "/calendars/{id}"): the mux would find a method-less 405
// fallback for it ambiguous, so there is none, and other methods fall to the wildcard route's.
func (a *API) HandleShadowing(method, path string, fn HandlerFunc, ahead ...Ahead) {
	a.handle(method, Prefix+path, fn, false, ahead)
}

func (a *API) handle(method, pattern string, fn HandlerFunc, fallback bool, ahead []Ahead) {
	enter := a.enter
	if !strings.HasPrefix(pattern, Prefix) {
		enter = a.enterAccount
	}
	if _, seen := a.methods[pattern]; !seen {
		if fallback {
			a.mux.HandleFunc(pattern, a.methodNotAllowed(pattern))
		} else {
			a.shadowing = append(a.shadowing, pattern)
		}
	}
	a.methods[pattern] = append(a.methods[pattern], method)
	a.mux.HandleFunc(method+" "+pattern, func(w http.ResponseWriter, r *http.Request) {
		r = shaped(r, method, pattern)
		req, err := enter(r, ahead)
		if err != nil {
			writeError(w, r, err)
			return
		}
		var kw *domain.KeyedWrite
		if method == http.MethodGet {
			req.Request = withView(req.Request, req.Access, string(req.FieldSet()))
		} else {
			if err := req.Access.CanWrite(); err != nil {
				writeError(w, r, err)
				return
			}
			var replay *domain.Replay
			if kw, replay, err = a.keyed(req); err != nil {
				writeError(w, r, err)
				return
			}
			if replay != nil {
				writeReplay(w, r, replay)
				return
			}
			if kw != nil {
				req.Request = req.Request.WithContext(domain.WithKeyedWrite(req.Context(), kw))
			}
		}
		reply, err := fn(req)
		if kw != nil {
			a.settle(w, req, kw, reply, err)
			return
		}
		if err == nil {
			reply, err = reply.project(req)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		reply.write(w, req)
		reply.release()
	})
}

// enter resolves the campaign of the path and the caller's access to it, and reads ahead what
// the route declared: one storage read.
func (a *API) enter(r *http.Request, ahead []Ahead) (*Request, error) {
	uid := userID(r.Context())
	cid, err := strconv.ParseInt(r.PathValue("campaign_id"), 10, 64)
	if err != nil || cid < 1 || cid > domain.MaxID {
		return nil, apperr.ErrNotFound
	}
	telemetry.From(r.Context()).Campaign(cid)
	var refs []domain.Ref
	for _, f := range ahead {
		if f != nil {
			refs = append(refs, f(r)...)
		}
	}
	ctx, c, m, err := a.opts.Campaigns.CampaignAccess(r.Context(), cid, uid, refs...)
	if err != nil {
		return nil, err
	}
	r = r.WithContext(ctx)
	acc, err := domain.ResolveAccess(uid, c, m)
	if err != nil {
		return nil, err
	}
	return &Request{Request: r, Access: acc, Campaign: c, RateLimit: a.opts.RateLimit, now: a.opts.Now(), trustForwarded: a.opts.TrustForwardedHeaders,
		query: parseQuery(r.URL.RawQuery), log: a.opts.logger(), images: a.opts.Images, imageBase: a.opts.ImageBaseURL}, nil
}

// enterAccount is enter for a route outside any campaign: the caller alone.
func (a *API) enterAccount(r *http.Request, _ []Ahead) (*Request, error) {
	return &Request{Request: r, Access: domain.Access{UserID: userID(r.Context())}, RateLimit: a.opts.RateLimit, now: a.opts.Now(), trustForwarded: a.opts.TrustForwardedHeaders,
		query: parseQuery(r.URL.RawQuery), log: a.opts.logger(), images: a.opts.Images, imageBase: a.opts.ImageBaseURL}, nil
}

func (a *API) allow(pattern string) string {
	ms := append([]string{}, a.methods[pattern]...)
	for _, m := range ms {
		if m == http.MethodGet {
			ms = append(ms, http.MethodHead)
		}
	}
	ms = append(ms, http.MethodOptions)
	sort.Strings(ms)
	return strings.Join(ms, ", ")
}

// registerFallbacks gives each shadowing literal path a 405 for every method it lacks, one
// pattern per method (a method-less one would be ambiguous beside the wildcard route). It runs
// before the first request, when every route is registered.
func (a *API) registerFallbacks() {
	for _, pattern := range a.shadowing {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(a.methods[pattern], m) {
				a.mux.HandleFunc(m+" "+pattern, a.methodNotAllowed(pattern))
			}
		}
	}
}

func (a *API) methodNotAllowed(pattern string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", a.allow(pattern))
		writeError(w, r, &apperr.Error{Code: apperr.ENotAllowed, Message: "The " + r.Method + " method is not supported for this route."})
	}
}

type ctxKey struct{}

func userID(ctx context.Context) int64 { id, _ := ctx.Value(ctxKey{}).(int64); return id }

// The values of the headers every answer carries, shared by every answer rather than a new
// slice each (Header.Set makes one): full slices, so that an Add appends to a copy, and nothing
// writes into a header's values in place.
var (
	allowAnyOrigin  = []string{"*"}[:1:1]
	exposedHeaders  = []string{"X-RateLimit-Remaining, X-RateLimit-Limit, X-Request-Id, Idempotent-Replayed"}[:1:1]
	jsonContentType = []string{"application/json"}[:1:1]
)

// serve runs the shared middleware, then routes (ServeHTTP, in observe.go, wraps it with the
// request id, the deadline, panic recovery and the log line). Every answer, preflights, 413s
// and errors included, is JSON (204 aside) and carries the rate-limit headers.
func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = allowAnyOrigin
	h["Access-Control-Expose-Headers"] = exposedHeaders

	// A trailing slash is accepted on every path.
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		r.URL.RawPath = ""
	}

	// Preflights carry no token: they are limited per client address, as failed
	// authentication is, so that neither costs the API much.
	var uid int64
	var authErr error
	fields := token.FieldsAll
	caller := "addr:" + clientAddr(r)
	public := a.isPublic(r) // no token needed: limited per address too
	if r.Method != http.MethodOptions && !public {
		if uid, authErr = a.opts.Identify(r); authErr == nil {
			caller = "user:" + strconv.FormatInt(uid, 10)
			telemetry.From(r.Context()).User(uid)
			if a.opts.FieldSet != nil {
				fields = a.opts.FieldSet(r)
			}
		}
	}
	var rates RateTaker = a.limiter
	if uid != 0 && a.opts.SharedRate != nil {
		rates = a.opts.SharedRate
	}
	if err := a.takeRate(w, r, rates, caller); err != nil {
		writeError(w, r, err)
		return
	}
	// http.ServeMux would answer a path with "//", "." or ".." segments with an HTML redirect to
	// its clean form (and clients replay write bodies there): such a path names no record.
	if p := r.URL.Path; p == "" || path.Clean(p) != p {
		writeError(w, r, apperr.ErrNotFound)
		return
	}
	if r.Method == http.MethodOptions {
		a.preflight(w, r)
		return
	}
	limit, tooLarge := bodyLimit(r)
	if r.ContentLength > limit {
		writeError(w, r, tooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if public {
		a.servePublic(w, r)
		return
	}
	if authErr != nil {
		writeError(w, r, authErr)
		return
	}
	routed := r.WithContext(withFieldSet(context.WithValue(r.Context(), ctxKey{}, uid), fields))
	a.mux.ServeHTTP(w, routed)
	if sw, ok := w.(*statusWriter); ok { // the mux set the pattern it matched: the log line's route
		sw.route, sw.routed = routed.Pattern, true
	}
}

// preflight answers CORS preflight requests without authentication.
// SetImages sets Options.Images, for the functions that serve images.
func (a *API) SetImages(images Images) { a.opts.Images = images }

func (a *API) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	methods := "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
	if _, pattern := a.mux.Handler(r); pattern != "/" && pattern != "" {
		methods = a.allow(strings.TrimPrefix(pattern, "OPTIONS "))
	}
	h.Set("Allow", methods)
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Idempotency-Key")
	h.Set("Access-Control-Max-Age", "3600")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNoContent)
}

// clientAddr is the caller's IP: on Lambda the adapter sets it from API Gateway's source IP.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// requestID keeps an id set upstream (API Gateway's, by the Lambda adapter) or makes one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 128 {
		return id
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// BearerAuth authenticates with the token store directly: the local server's and the tests'
// twin of the authorizer Lambda.
func BearerAuth(tokens token.Store, now func() time.Time) Identifier {
	return func(r *http.Request) (int64, error) {
		return token.Authenticate(r.Context(), tokens, r.Header.Get("Authorization"), now())
	}
}

// PathID reads a record id from the path; anything but a valid id is a 404, like a missing record.
func (r *Request) PathID(name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id < 1 || id > domain.MaxID {
		return 0, apperr.ErrNotFound
	}
	return id, nil
}

// EntityReader reads one entity of a campaign (the store does).
type EntityReader interface {
	GetEntity(ctx context.Context, cid, eid int64) (*domain.Entity, error)
}

// VisibleEntity reads the entity of the path ({entity_id}), the parent of entity events and
// notes; one the caller may not see is a 404 like a missing one.
func (r *Request) VisibleEntity(entities EntityReader) (*domain.Entity, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return nil, err
	}
	e, err := entities.GetEntity(r.Context(), r.Access.CampaignID, eid)
	if err != nil {
		return nil, err
	}
	return e, r.Access.SeeEntity(e)
}

// EntityRecord reads the record {id} of the path entity {entity_id} with get (the record and
// its entity in one round trip); both must be visible to the caller, the record as see says.
func EntityRecord[T any](r *Request, get func(ctx context.Context, cid, eid, id int64) (*domain.Entity, *T, error), see func(*T) bool) (*domain.Entity, *T, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return nil, nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, nil, err
	}
	e, t, err := get(r.Context(), r.Access.CampaignID, eid, id)
	if err == nil {
		err = r.Access.SeeEntity(e)
	}
	if err == nil && !see(t) {
		err = apperr.ErrNotFound
	}
	return e, t, err
}

// EntityList reads what a list of the path entity's records (notes, events) takes: the visible
// entity, the filter and the page.
func (r *Request) EntityList(entities EntityReader) (*domain.Entity, domain.Filter, domain.PageRequest, error) {
	e, err := r.VisibleEntity(entities)
	if err != nil {
		return nil, domain.Filter{}, domain.PageRequest{}, err
	}
	f, err := r.Filter(domain.FilterChildren)
	if err != nil {
		return nil, domain.Filter{}, domain.PageRequest{}, err
	}
	page, err := r.Page()
	return e, f, page, err
}

// Input decodes the write body.
func (r *Request) Input() (domain.Input, error) {
	if !r.decoded {
		r.input, r.inputErr = decodeInput(r.Request)
		r.decoded = true
	}
	return r.input, r.inputErr
}
