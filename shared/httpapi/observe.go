package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
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
	l := requestLine{id: id, method: r.Method, route: route, path: r.URL.Path, status: sw.status,
		durationMS: float64(d.Microseconds()) / 1000, s: s, start: start, trace: telemetry.TraceID(r.Context())}
	logger := a.opts.logger()
	if h, ok := logger.Handler().(*LogHandler); ok && h.write(r.Context(), &l) {
		return
	}
	logger.LogAttrs(r.Context(), l.level(), "request", l.attrs()...)
}

// requestLine is what a request's log line says.
type requestLine struct {
	id, method, route, path string
	status                  int
	durationMS              float64
	s                       telemetry.Snapshot
	start                   time.Time
	trace                   string
}

func (l *requestLine) level() slog.Level {
	if l.status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}

// attrs are the line's fields as slog attributes, in the order the line writes them.
func (l *requestLine) attrs() []slog.Attr {
	s := l.s
	attrs := []slog.Attr{
		slog.String("request_id", l.id),
		slog.String("method", l.method),
		slog.String("route", l.route),
		slog.String("path", l.path),
		slog.Int("status", l.status),
		slog.Float64("duration_ms", l.durationMS),
		slog.Int64("user_id", s.UserID),
		slog.Int64("campaign_id", s.CampaignID),
		slog.Int("dynamodb_calls", s.DBCalls),
		slog.Float64("dynamodb_read_units", s.ReadUnits),
		slog.Float64("dynamodb_write_units", s.WriteUnits),
		slog.Int("requests", 1),
		slog.Any("_aws", metricsOf(l.route, l.start)),
	}
	if l.trace != "" {
		attrs = append(attrs, slog.String("trace_id", l.trace))
	}
	if l.level() == slog.LevelError {
		if s.Err != nil {
			attrs = append(attrs, slog.String("error", s.Err.Error()))
		}
		if s.DBErr != nil {
			attrs = append(attrs, slog.String("dynamodb_error", s.DBErr.Error()))
		}
	}
	return attrs
}

// appendJSON appends the line as slog's JSON handler writes the record of attrs logged at t
// (TestRequestLineIsSlogJSON): the same keys in the same order, strings escaped as it escapes
// them, floats as encoding/json writes them; false for a float encoding/json refuses (NaN, an
// infinity), which the JSON handler then writes its own way.
func (l *requestLine) appendJSON(b []byte, t time.Time) ([]byte, bool) {
	s := l.s
	for _, f := range [...]float64{l.durationMS, s.ReadUnits, s.WriteUnits} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return b, false
		}
	}
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, l.level().String()...)
	b = append(b, `","msg":"request","request_id":`...)
	b = AppendString(b, l.id)
	b = append(b, `,"method":`...)
	b = AppendString(b, l.method)
	b = append(b, `,"route":`...)
	b = AppendString(b, l.route)
	b = append(b, `,"path":`...)
	b = AppendString(b, l.path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"duration_ms":`...)
	b = AppendFloat(b, l.durationMS)
	b = append(b, `,"user_id":`...)
	b = strconv.AppendInt(b, s.UserID, 10)
	b = append(b, `,"campaign_id":`...)
	b = strconv.AppendInt(b, s.CampaignID, 10)
	b = append(b, `,"dynamodb_calls":`...)
	b = strconv.AppendInt(b, int64(s.DBCalls), 10)
	b = append(b, `,"dynamodb_read_units":`...)
	b = AppendFloat(b, s.ReadUnits)
	b = append(b, `,"dynamodb_write_units":`...)
	b = AppendFloat(b, s.WriteUnits)
	b = append(b, `,"requests":1,"_aws":`...)
	b = appendMetrics(b, l.route, l.start)
	if l.trace != "" {
		b = append(b, `,"trace_id":`...)
		b = AppendString(b, l.trace)
	}
	if l.level() == slog.LevelError {
		if s.Err != nil {
			b = append(b, `,"error":`...)
			b = AppendString(b, s.Err.Error())
		}
		if s.DBErr != nil {
			b = append(b, `,"dynamodb_error":`...)
			b = AppendString(b, s.DBErr.Error())
		}
	}
	return append(b, "}\n"...), true
}

// LogHandler is slog's JSON handler with the request line written by hand (appendJSON, the
// same bytes): the JSON handler encoded the line's three floats and its metrics directive with
// encoding/json, a sixth to a seventh of a list page's own CPU. Every other record goes to the
// JSON handler; both write whole lines to the one writer, one at a time.
type LogHandler struct {
	*slog.JSONHandler
	w *lockedWriter
}

// NewLogHandler is the functions' log: JSON lines on w, at Info and above.
func NewLogHandler(w io.Writer) *LogHandler {
	lw := &lockedWriter{w: w}
	return &LogHandler{JSONHandler: slog.NewJSONHandler(lw, nil), w: lw}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// write writes l; false: the JSON handler is to write it.
func (h *LogHandler) write(ctx context.Context, l *requestLine) bool {
	if !h.Enabled(ctx, l.level()) {
		return true // as slog: a line below the level is not written
	}
	p, buf := getBuf(1024)
	b, ok := l.appendJSON(buf, time.Now().Round(0))
	if ok {
		_, _ = h.w.Write(b)
		putBuf(p, b)
	}
	return ok
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
	return appendMetrics(nil, route, start)
}

func appendMetrics(b []byte, route string, start time.Time) []byte {
	b = strconv.AppendInt(append(b, `{"Timestamp":`...), start.UnixMilli(), 10)
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
