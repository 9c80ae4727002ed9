package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// DefaultTimeout is the per-request deadline: with DynamoDB slow or unreachable a client gets a
// 503 with Retry-After within about 2 s, long before the Lambda timeout (10 s).
const DefaultTimeout = 1800 * time.Millisecond

// ServeHTTP is the outermost layer of every request, on Lambda and locally: a request id, the
// per-request deadline, panic recovery and one JSON log line once the answer is written.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.fallbacks.Do(a.registerFallbacks)
	start := time.Now()
	id := requestID(r)
	w.Header().Set("X-Request-Id", id)
	ctx, rec := telemetry.With(r.Context())
	if a.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.opts.Timeout)
		defer cancel()
	}
	r = r.WithContext(ctx)
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			rec.Fail(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			if sw.status == 0 {
				writeError(sw, r, errPanic)
			}
		}
		a.logRequest(r, id, sw, start, time.Since(start), rec.Snapshot())
	}()
	a.serve(sw, r)
}

var errPanic = errors.New("panic")

func (a *API) logRequest(r *http.Request, id string, sw *statusWriter, start time.Time, d time.Duration, s telemetry.Snapshot) {
	status := sw.status
	route := ""
	switch {
	case sw.routed: // the campaign mux served it: the pattern it matched, no second lookup
		if sw.route != "/" {
			route = sw.route
		}
	default: // answered before routing (or by a public route): the route it names
		if a.public != nil {
			_, route = a.public.Handler(r)
		}
		if _, pattern := a.mux.Handler(r); route == "" && pattern != "/" {
			route = pattern
		}
	}
	attrs := []slog.Attr{
		slog.String("request_id", id),
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.Int64("user_id", s.UserID),
		slog.Int64("campaign_id", s.CampaignID),
		slog.Int("dynamodb_calls", s.DBCalls),
		slog.Float64("dynamodb_read_units", s.ReadUnits),
		slog.Float64("dynamodb_write_units", s.WriteUnits),
		slog.Int("requests", 1),
		slog.Any("_aws", metricsOf(route, start)),
	}
	if trace := telemetry.TraceID(r.Context()); trace != "" {
		attrs = append(attrs, slog.String("trace_id", trace))
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
		if s.Err != nil {
			attrs = append(attrs, slog.String("error", s.Err.Error()))
		}
		if s.DBErr != nil {
			attrs = append(attrs, slog.String("dynamodb_error", s.DBErr.Error()))
		}
	}
	a.opts.logger().LogAttrs(r.Context(), level, "request", attrs...)
}

// The request log line is also a CloudWatch embedded metric format document: CloudWatch Logs
// turns its "_aws" directive into metrics of the Lorekeep namespace, per route, from fields the
// line carries anyway. No call to CloudWatch, nothing more written. The directive is fixed text
// around the timestamp (milliseconds since the epoch).
const emfMetrics = `"Metrics":[{"Name":"requests","Unit":"Count"},{"Name":"duration_ms","Unit":"Milliseconds"},` +
	`{"Name":"dynamodb_calls","Unit":"Count"},` +
	`{"Name":"dynamodb_read_units","Unit":"Count"},{"Name":"dynamodb_write_units","Unit":"Count"}]}]}`

const (
	// A request of a route is counted under its route; one that matched none (a 404, a 405
	// fallback, a preflight of an unknown path) has no route, and a metric dimension cannot be
	// empty, so it is counted without one.
	emfByRoute  = `,"CloudWatchMetrics":[{"Namespace":"Lorekeep","Dimensions":[["route"]],` + emfMetrics
	emfUnrouted = `,"CloudWatchMetrics":[{"Namespace":"Lorekeep","Dimensions":[[]],` + emfMetrics
)

func metricsOf(route string, start time.Time) json.RawMessage {
	b := strconv.AppendInt([]byte(`{"Timestamp":`), start.UnixMilli(), 10)
	if route == "" {
		return append(b, emfUnrouted...)
	}
	return append(b, emfByRoute...)
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// statusWriter remembers the status written, for the log line and for panic recovery.
type statusWriter struct {
	http.ResponseWriter
	status int
	// route is the pattern the campaign mux matched, once routed (serve).
	route  string
	routed bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
