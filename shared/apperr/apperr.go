// Package apperr holds the error type every layer shares: a code (mapped to an HTTP status in
// one place, package httpapi), a client-facing message and per-field validation messages. It is a
// leaf, so the authorizer can use it without linking the domain's sanitiser and calendar engine.
package apperr

import "errors"

// Error codes. The HTTP layer maps each to one status in one place.
const (
	EInvalid          = "invalid"
	ENotFound         = "not_found"
	EForbidden        = "forbidden"
	EUnauthenticated  = "unauthenticated"
	EConflict         = "conflict"
	EUnavailable      = "unavailable"
	EInternal         = "internal"
	ETooLarge         = "too_large"
	EUnsupportedMedia = "unsupported_media"
	ENotAllowed       = "method_not_allowed"
	ERateLimited      = "rate_limited"
	EBusy             = "busy"
	// EResync: the client's sync state is older than what the API keeps (a 410).
	EResync = "resync"
)

// Error is a failure the client may be told about. Fields is set on validation failures.
type Error struct {
	Code    string
	Message string
	Fields  *FieldErrors
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Standard messages, as Kanka words them.
var (
	ErrNotFound        = &Error{Code: ENotFound, Message: "Not found."}
	ErrForbidden       = &Error{Code: EForbidden, Message: "This action is unauthorized."}
	ErrUnauthenticated = &Error{Code: EUnauthenticated, Message: "Unauthenticated."}
	ErrConflict        = &Error{Code: EConflict, Message: "The record is being changed by other requests at the same time; retry in a moment."}
	ErrUnavailable     = &Error{Code: EUnavailable, Message: "The service is temporarily unavailable; retry."}
	// ErrImagesBusy: the image bucket or the image function refused or did not answer, and
	// nothing was written. A 503 says only that DynamoDB is unavailable, so this is a 429 with
	// Retry-After (DESIGN 2, 13).
	ErrImagesBusy = &Error{Code: EBusy, Message: "The image service is busy; retry in a moment."}
)

// ErrorCode returns the code of err, EInternal for errors that are not an *Error.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// FieldErrors collects validation messages per field, in the order fields were first reported.
type FieldErrors struct {
	order []string
	msgs  map[string][]string
}

// Add records a message for field.
func (f *FieldErrors) Add(field, msg string) {
	if f.msgs == nil {
		f.msgs = map[string][]string{}
	}
	if _, ok := f.msgs[field]; !ok {
		f.order = append(f.order, field)
	}
	f.msgs[field] = append(f.msgs[field], msg)
}

// Has reports whether field already has a message.
func (f *FieldErrors) Has(field string) bool { _, ok := f.msgs[field]; return ok }

// Empty reports whether no message was recorded.
func (f *FieldErrors) Empty() bool { return len(f.order) == 0 }

// Fields returns the fields with messages, in report order.
func (f *FieldErrors) Fields() []string { return f.order }

// Messages returns the messages of field.
func (f *FieldErrors) Messages(field string) []string { return f.msgs[field] }

// Err returns nil when empty, else an EInvalid *Error whose message is the first one reported.
func (f *FieldErrors) Err() error {
	if f.Empty() {
		return nil
	}
	return &Error{Code: EInvalid, Message: f.msgs[f.order[0]][0], Fields: f}
}

// Resync is the 410 of a read whose field (lastSync) asks for history the API no longer keeps:
// the client must read the list in full again.
func Resync(field, msg string) error {
	var f FieldErrors
	f.Add(field, msg)
	return &Error{Code: EResync, Message: msg, Fields: &f}
}

// Invalid returns a validation error for one field.
func Invalid(field, msg string) error {
	var f FieldErrors
	f.Add(field, msg)
	return f.Err()
}
