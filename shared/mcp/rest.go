package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// A tool never answers from a record store of its own: every read and write is a request to
// the REST routes, served in process by the same httpapi.API (routing, the caller's role, each
// record's privacy and visibility, validation, idempotency, bounds), for the caller the /mcp
// request authenticated (httpapi.WithCaller).

// origin is what an inner request inherits from the /mcp request that caused it.
type origin struct {
	host       string
	remoteAddr string
	header     http.Header // the forwarded headers, read only if the API trusts them
	requestID  string
	seq        *atomic.Int64
}

type originKey struct{}

func withOrigin(ctx context.Context, o origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// answer is one REST answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// recorder is the ResponseWriter of an inner request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// rest sends one request to the API's routes: path is absolute ("/api/1.0/campaigns/1/..."),
// body (nil: none) is sent as JSON, key is the Idempotency-Key ("" for none).
func (s *Server) rest(ctx context.Context, method, path string, query url.Values, body any, key string) answer {
	o, _ := ctx.Value(originKey{}).(origin)
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{status: http.StatusUnprocessableEntity, body: errorJSON("The arguments could not be encoded.")}
		}
		rd = bytes.NewReader(b)
	}
	u := &url.URL{Path: path, RawQuery: query.Encode()}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return answer{status: http.StatusNotFound, body: errorJSON("Not found.")}
	}
	if rd != nil {
		req.Body = readCloser{rd}
		req.ContentLength = int64(rd.Len())
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Host, req.RemoteAddr = o.host, o.remoteAddr
	for _, h := range []string{"X-Forwarded-Proto", "X-Forwarded-Host"} {
		if v := o.header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	if o.seq != nil && o.requestID != "" {
		req.Header.Set("X-Request-Id", o.requestID+"."+strconv.FormatInt(o.seq.Add(1), 10))
	}
	rec := &recorder{header: http.Header{}}
	s.api.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return answer{status: rec.status, header: rec.header, body: rec.body.Bytes()}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func errorJSON(msg string) []byte { b, _ := json.Marshal(map[string]string{"message": msg}); return b }

// ok reports a success.
func (a answer) ok() bool { return a.status >= 200 && a.status < 300 }

// restError is a REST error as a tool reports it: the status, the message and each field's
// messages, so that the assistant knows which argument to change.
type restError struct {
	Status  int                 `json:"status" jsonschema:"the HTTP status the REST route answered"`
	Message string              `json:"message" jsonschema:"what went wrong"`
	Errors  map[string][]string `json:"errors,omitempty" jsonschema:"the messages of each field that was refused, by field name"`
	// RetryAfter is the seconds to wait before sending again (429, 409, 503).
	RetryAfter int `json:"retry_after,omitempty" jsonschema:"seconds to wait before sending the same call again"`
}

func (a answer) restError() *restError {
	var e struct {
		Message string              `json:"message"`
		Errors  map[string][]string `json:"errors"`
	}
	_ = json.Unmarshal(a.body, &e)
	if e.Message == "" {
		e.Message = http.StatusText(a.status)
	}
	re := &restError{Status: a.status, Message: e.Message, Errors: e.Errors}
	if v, err := strconv.Atoi(a.header.Get("Retry-After")); err == nil {
		re.RetryAfter = v
	}
	return re
}

// Error is the tool error's text: the message, then each field's messages.
func (e *restError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (HTTP %d)", e.Message, e.Status)
	fields := make([]string, 0, len(e.Errors))
	for f := range e.Errors {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		fmt.Fprintf(&b, "; %s: %s", f, strings.Join(e.Errors[f], " "))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %d s", e.RetryAfter)
	}
	return b.String()
}

// envelope is a REST answer's body.
type envelope struct {
	Data  json.RawMessage `json:"data"`
	Links struct {
		Next *string `json:"next"`
	} `json:"links"`
	Meta *struct {
		CurrentPage  int     `json:"current_page"`
		LastPage     int     `json:"last_page"`
		PerPage      int     `json:"per_page"`
		Total        int     `json:"total"`
		DeletedSince *string `json:"deleted_since"`
	} `json:"meta"`
	Sync string `json:"sync"`
}

func (a answer) envelope() (envelope, error) {
	var e envelope
	if err := json.Unmarshal(a.body, &e); err != nil {
		return e, fmt.Errorf("the REST answer could not be read: %w", err)
	}
	return e, nil
}

// campaignPath is the path of rest under campaign cid.
func campaignPath(cid int64, rest string) string {
	return "/api/1.0/campaigns/" + strconv.FormatInt(cid, 10) + rest
}

// ensure the API type is what rest serves through.
var _ http.Handler = (*httpapi.API)(nil)
