package httpapi

import (
	"context"
	"net/http"

	"github.com/lorekeep/lorekeep/shared/token"
)

// Caller is an authenticated caller: its user and the field set its token is bound to.
type Caller struct {
	UserID   int64
	FieldSet token.FieldSet
}

type callerKey struct{}

// WithCaller is ctx for requests served in process on behalf of c, already authenticated (the
// MCP endpoint's tool calls, each dispatched through the API's own routes): the API takes the
// caller from here instead of asking its Identifier again. Only Go code can set it; a client
// has no way to.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// Authenticate is the API's authentication of r, as every campaign route runs it: the caller,
// or apperr.ErrUnauthenticated (an outage is its own error).
func (a *API) Authenticate(r *http.Request) (Caller, error) {
	if c, ok := r.Context().Value(callerKey{}).(Caller); ok && c.UserID > 0 {
		return c, nil
	}
	uid, err := a.opts.Identify(r)
	if err != nil {
		return Caller{}, err
	}
	c := Caller{UserID: uid, FieldSet: token.FieldsAll}
	if a.opts.FieldSet != nil {
		c.FieldSet = a.opts.FieldSet(r)
	}
	return c, nil
}

// Origin is the scheme and host r was sent to, as the API builds its links (forwarded headers
// only when the API trusts them).
func (a *API) Origin(r *http.Request) string {
	return origin(&Request{Request: r, trustForwarded: a.opts.TrustForwardedHeaders})
}
