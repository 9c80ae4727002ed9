package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// statusOf is the one place an error code becomes an HTTP status.
var statusOf = map[string]int{
	apperr.EInvalid:          http.StatusUnprocessableEntity,
	apperr.ENotFound:         http.StatusNotFound,
	apperr.EForbidden:        http.StatusForbidden,
	apperr.EUnauthenticated:  http.StatusUnauthorized,
	apperr.EConflict:         http.StatusConflict,
	apperr.EUnavailable:      http.StatusServiceUnavailable,
	apperr.ETooLarge:         http.StatusRequestEntityTooLarge,
	apperr.EUnsupportedMedia: http.StatusUnsupportedMediaType,
	apperr.ENotAllowed:       http.StatusMethodNotAllowed,
	apperr.ERateLimited:      http.StatusTooManyRequests,
	apperr.EBusy:             http.StatusTooManyRequests,
	apperr.EResync:           http.StatusGone,
	apperr.EInternal:         http.StatusInternalServerError,
}

// writeJSON is the one writer of every response body: exact Content-Type, a Content-Length,
// and no body for HEAD.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		logInternal(r, fmt.Errorf("encode response: %w", err))
		status, body = http.StatusInternalServerError, []byte(`{"message":"Server Error."}`)
	}
	writeBody(w, r, status, body)
}

// encodeJSON is a response body as writeJSON writes it.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // entries are HTML; \u003c escapes help no client
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// writeBody writes an encoded JSON body (writeJSON's, or one stored with an Idempotency-Key).
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	body = trimmed(r, status, body)      // to the caller's field set (fieldset.go)
	if conditional(w, r, status, body) { // a read's tag, and its 304 (etag.go)
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

type errorBody struct {
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors,omitempty"`
}

// logInternal hands the cause of a 500 to the request's log line (logged once, there), or logs
// it when the request has none.
func logInternal(r *http.Request, err error) {
	if rec := telemetry.From(r.Context()); rec != nil {
		rec.Fail(err)
		return
	}
	slog.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
}

// writeError renders err. Errors that are not a *apperr.Error are bugs: logged with the request
// id, shown as a generic 500 without detail.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var de *apperr.Error
	if !errors.As(err, &de) {
		logInternal(r, err)
		writeJSON(w, r, http.StatusInternalServerError, errorBody{Message: "Server Error."})
		return
	}
	status, ok := statusOf[de.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	body := errorBody{Message: de.Message}
	if de.Fields != nil {
		body.Errors = map[string][]string{}
		for _, f := range de.Fields.Fields() {
			body.Errors[f] = de.Fields.Messages(f)
		}
	}
	// A conflict left after the handler's own retries, or an outage: the client should retry.
	if status == http.StatusServiceUnavailable || status == http.StatusConflict {
		w.Header().Set("Retry-After", "1")
	}
	if de.Code == apperr.EBusy { // the image service: a busy bucket or function (DESIGN 13)
		w.Header().Set("Retry-After", "2")
	}
	writeJSON(w, r, status, body)
}
