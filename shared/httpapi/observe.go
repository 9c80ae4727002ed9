package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
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
		a.logRequest(r, id, sw.status, time.Since(start), rec.Snapshot())
	}()
	a.serve(sw, r)
}

var errPanic = errors.New("panic")

func (a *API) logRequest(r *http.Request, id string, status int, d time.Duration, s telemetry.Snapshot) {
	route := ""
	if a.public != nil {
		_, route = a.public.Handler(r)
	}
	if _, pattern := a.mux.Handler(r); route == "" && pattern != "/" {
		route = pattern
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
