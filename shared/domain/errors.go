// Package domain holds Lorekeep's types, validation and access rules. It is pure Go: it knows
// nothing of HTTP, Lambda or DynamoDB, so every family and every adapter shares one meaning of
// "valid", "visible" and "allowed".
package domain

import "github.com/lorekeep/lorekeep/shared/apperr"

// The error type and codes live in the leaf package apperr (so the authorizer stays small);
// these names are the ones the domain and every family use.
const (
	EInvalid          = apperr.EInvalid
	ENotFound         = apperr.ENotFound
	EForbidden        = apperr.EForbidden
	EUnauthenticated  = apperr.EUnauthenticated
	EConflict         = apperr.EConflict
	EUnavailable      = apperr.EUnavailable
	EInternal         = apperr.EInternal
	ETooLarge         = apperr.ETooLarge
	EUnsupportedMedia = apperr.EUnsupportedMedia
	ENotAllowed       = apperr.ENotAllowed
	ERateLimited      = apperr.ERateLimited
)

type (
	// Error is a failure the client may be told about (apperr.Error).
	Error = apperr.Error
	// FieldErrors collects validation messages per field (apperr.FieldErrors).
	FieldErrors = apperr.FieldErrors
)

// Standard messages, as Kanka words them.
var (
	ErrNotFound        = apperr.ErrNotFound
	ErrForbidden       = apperr.ErrForbidden
	ErrUnauthenticated = apperr.ErrUnauthenticated
	ErrConflict        = apperr.ErrConflict
	ErrUnavailable     = apperr.ErrUnavailable
)

// ErrorCode returns the code of err, EInternal for errors that are not an *Error.
func ErrorCode(err error) string { return apperr.ErrorCode(err) }

// Invalid returns a validation error for one field.
func Invalid(field, msg string) error { return apperr.Invalid(field, msg) }

// WriteAttempts bounds how often a read-merge-write is tried when it loses a race.
const WriteAttempts = 4

// RetryConflicts runs attempt (which reads, merges and writes on condition of the version read)
// again while it fails with ErrConflict, at most WriteAttempts times: a lost race is retried on
// fresh data, and reported as a 409 only when it keeps losing, never silently.
func RetryConflicts(attempt func() error) error {
	var err error
	for i := 0; i < WriteAttempts; i++ {
		if err = attempt(); err != ErrConflict {
			return err
		}
	}
	return err
}
