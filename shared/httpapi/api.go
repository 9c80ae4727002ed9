// Package httpapi is the HTTP contract every resource family shares: routing under the campaign
// prefix, authentication, campaign access, body decoding, the JSON envelope, pagination, errors,
// CORS and rate limits. A family only registers handlers; the Lambda adapter, the local server
// and the tests all mount the same http.Handler.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Prefix is the path every route lives under.
const Prefix = "/api/1.0/campaigns/{campaign_id}"

// Identifier authenticates a request and returns the caller's user id (ErrUnauthenticated when
// it cannot). Locally it checks the bearer token; on Lambda it reads the authorizer's verdict.
type Identifier func(r *http.Request) (int64, error)

// Campaigns reads a campaign and a user's membership in it.
type Campaigns interface {
	CampaignAccess(ctx context.Context, cid, uid int64) (*domain.Campaign, *domain.Membership, error)
}

// Options configure an API.
type Options struct {
	Identify  Identifier
	Campaigns Campaigns
	// RateLimit is requests per user per minute (default 90).
	RateLimit int
	Now       func() time.Time
}

// API is the shared front of every family.
type API struct {
	opts    Options
	mux     *http.ServeMux
	methods map[string][]string // path pattern -> methods registered on it
	limiter *limiter
}

// New builds an API; families then Handle their routes on it.
func New(opts Options) *API {
	if opts.RateLimit <= 0 {
		opts.RateLimit = 90
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	a := &API{opts: opts, mux: http.NewServeMux(), methods: map[string][]string{}, limiter: newLimiter(opts.RateLimit, opts.Now)}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeError(w, r, domain.ErrNotFound) })
	return a
}

// Request is what a family handler receives: the HTTP request and the caller's access to the
// campaign in the path, already checked.
type Request struct {
	*http.Request
	Access domain.Access
	now    time.Time
}

// HandlerFunc handles one route and returns the reply to render, or an error to map.
type HandlerFunc func(r *Request) (Reply, error)

// Handle registers fn for method and a path relative to the campaign prefix, e.g.
// Handle("GET", "/locations/{id}", fn). GET routes serve HEAD too; every other method writes,
// so the caller's write access is checked here, before fn runs.
func (a *API) Handle(method, path string, fn HandlerFunc) { a.handle(method, path, fn, true) }

// HandleShadowing is Handle for a literal path beside a wildcard one of the same shape
// ("/calendars/presets" beside "/calendars/{id}"): the mux would find a method-less 405
// fallback for it ambiguous, so there is none, and other methods fall to the wildcard route's.
func (a *API) HandleShadowing(method, path string, fn HandlerFunc) { a.handle(method, path, fn, false) }

func (a *API) handle(method, path string, fn HandlerFunc, fallback bool) {
	pattern := Prefix + path
	if _, seen := a.methods[pattern]; !seen && fallback {
		a.mux.HandleFunc(pattern, a.methodNotAllowed(pattern))
	}
	a.methods[pattern] = append(a.methods[pattern], method)
	a.mux.HandleFunc(method+" "+pattern, func(w http.ResponseWriter, r *http.Request) {
		req, err := a.enter(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if method != http.MethodGet {
			if err := req.Access.CanWrite(); err != nil {
				writeError(w, r, err)
				return
			}
		}
		reply, err := fn(req)
		if err != nil {
			writeError(w, r, err)
			return
		}
		reply.write(w, req)
	})
}

// enter resolves the campaign of the path and the caller's access to it: one storage read.
func (a *API) enter(r *http.Request) (*Request, error) {
	uid := userID(r.Context())
	cid, err := strconv.ParseInt(r.PathValue("campaign_id"), 10, 64)
	if err != nil || cid < 1 || cid > domain.MaxID {
		return nil, domain.ErrNotFound
	}
	c, m, err := a.opts.Campaigns.CampaignAccess(r.Context(), cid, uid)
	if err != nil {
		return nil, err
	}
	acc, err := domain.ResolveAccess(uid, c, m)
	if err != nil {
		return nil, err
	}
	return &Request{Request: r, Access: acc, now: a.opts.Now()}, nil
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

func (a *API) methodNotAllowed(pattern string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", a.allow(pattern))
		writeError(w, r, &domain.Error{Code: domain.ENotAllowed, Message: "The " + r.Method + " method is not supported for this route."})
	}
}

type ctxKey struct{}

func userID(ctx context.Context) int64 { id, _ := ctx.Value(ctxKey{}).(int64); return id }

// ServeHTTP runs the shared middleware, then routes.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "X-RateLimit-Remaining, X-RateLimit-Limit, X-Request-Id")
	h.Set("X-Request-Id", requestID(r))

	// A trailing slash is accepted on every path.
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		r.URL.RawPath = ""
	}
	if r.Method == http.MethodOptions {
		a.preflight(w, r)
		return
	}
	if r.ContentLength > MaxBodyBytes {
		writeError(w, r, errTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)

	// Failed authentication is limited per client address, so that bad tokens cost little.
	uid, err := a.opts.Identify(r)
	if err != nil {
		if lerr := a.limiter.take(w, "addr:"+clientAddr(r)); lerr != nil {
			err = lerr
		}
		writeError(w, r, err)
		return
	}
	if err := a.limiter.take(w, "user:"+strconv.FormatInt(uid, 10)); err != nil {
		writeError(w, r, err)
		return
	}
	a.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, uid)))
}

// preflight answers CORS preflight requests without authentication.
func (a *API) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	methods := "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
	if _, pattern := a.mux.Handler(r); pattern != "/" && pattern != "" {
		methods = a.allow(strings.TrimPrefix(pattern, "OPTIONS "))
	}
	h.Set("Allow", methods)
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
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
func BearerAuth(tokens domain.TokenStore, now func() time.Time) Identifier {
	return func(r *http.Request) (int64, error) {
		return domain.Authenticate(r.Context(), tokens, r.Header.Get("Authorization"), now())
	}
}

// PathID reads a record id from the path; anything but a valid id is a 404, like a missing record.
func (r *Request) PathID(name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id < 1 || id > domain.MaxID {
		return 0, domain.ErrNotFound
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
		err = domain.ErrNotFound
	}
	return e, t, err
}

// EntityList reads what a list of the path entity's records takes: the visible entity, the
// filter (lastSync) and the page.
func (r *Request) EntityList(entities EntityReader) (*domain.Entity, domain.ChildFilter, domain.PageRequest, error) {
	e, err := r.VisibleEntity(entities)
	if err != nil {
		return nil, domain.ChildFilter{}, domain.PageRequest{}, err
	}
	since, err := r.LastSync()
	return e, domain.ChildFilter{UpdatedAfter: since}, r.Page(), err
}

// Input decodes the write body.
func (r *Request) Input() (domain.Input, error) { return decodeInput(r.Request) }
