// Package lambdaapi runs the shared HTTP handlers on AWS Lambda behind an API Gateway HTTP API
// (payload 2.0). It is the adapter only: it links neither the store nor a family, so each
// function's main wires exactly what it serves (the authorizer is package authorizer).
//
// The authorizer authenticates only. It always answers isAuthorized=true and passes the user id
// (and the token's field set, when it is bound to one) in its context when the token is valid:
// with simple responses, a false answer would make API Gateway reply 403 "Forbidden" where the
// contract says 401 "Unauthenticated.", so the function itself answers 401 when the context
// holds no user. Campaign access is never decided here: the authorizer's cache is keyed by the
// Authorization header, not by campaign.
package lambdaapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/gcpolicy"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/token"
)

// ColdStart builds what a family Lambda shares, once: the collector's policy (gcpolicy), JSON logs, the storage open opens (a
// failure ends the process, and Lambda reports the failed init), and the shared API over it.
// The main then mounts its family and calls Start.
func ColdStart[S httpapi.Campaigns](open func(ctx context.Context, getenv func(string) string) (S, error)) (*httpapi.API, S) {
	return ColdStartWith(open, nil)
}

// ColdStartWith is ColdStart with the API's options adjusted by adjust (nil: none) once the
// storage is open: a function whose routes API Gateway does not authorize (the MCP endpoint,
// which answers its own 401 with WWW-Authenticate) authenticates the token itself.
func ColdStartWith[S httpapi.Campaigns](open func(ctx context.Context, getenv func(string) string) (S, error), adjust func(*httpapi.Options, S)) (*httpapi.API, S) {
	gcpolicy.ForLambda(os.Getenv)
	slog.SetDefault(slog.New(httpapi.NewLogHandler(os.Stderr)))
	st, err := open(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("configure dynamodb", "err", err)
		os.Exit(1)
	}
	opts := Options(os.Getenv, st)
	if rates, ok := any(st).(httpapi.RateTaker); ok {
		opts.SharedRate = rates // warm instances share each user's rate bucket
	}
	if adjust != nil {
		adjust(&opts, st)
	}
	return httpapi.New(opts), st
}

// PublicAPI is ColdStart for a function of public routes only: no storage.
func PublicAPI() *httpapi.API {
	gcpolicy.ForLambda(os.Getenv)
	slog.SetDefault(slog.New(httpapi.NewLogHandler(os.Stderr)))
	return httpapi.New(Options(os.Getenv, nil))
}

// Options are a function's API options on Lambda: the environment's (httpapi.OptionsFromEnv),
// with the caller as the authorizer found it (its user and its token's field set).
func Options(getenv func(string) string, campaigns httpapi.Campaigns) httpapi.Options {
	opts := httpapi.OptionsFromEnv(getenv, AuthorizerIdentity, campaigns)
	opts.FieldSet = AuthorizerFieldSet
	return opts
}

// Start serves api's routes to Lambda's invocations until the process ends.
func Start(api http.Handler) { lambda.Start(Handler(api)) }

// Handler adapts h to API Gateway HTTP API events. API Gateway's request id becomes the
// request's X-Request-Id, so logs and responses carry it.
func Handler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	adapter := httpadapter.NewV2(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("X-Request-Id")
		if gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && gw.RequestID != "" {
			r.Header.Set("X-Request-Id", gw.RequestID)
		}
		h.ServeHTTP(w, r)
	}))
	return adapter.ProxyWithContext
}

// AuthorizerIdentity reads the user id that the authorizer put in the request context (never a
// header: a client controls those).
func AuthorizerIdentity(r *http.Request) (int64, error) {
	gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || gw.Authorizer == nil {
		return 0, apperr.ErrUnauthenticated
	}
	raw, ok := gw.Authorizer.Lambda[token.UserIDKey]
	if !ok {
		return 0, apperr.ErrUnauthenticated
	}
	id, err := strconv.ParseInt(strings.TrimSpace(fmt.Sprint(raw)), 10, 64)
	if err != nil || id < 1 {
		return 0, apperr.ErrUnauthenticated
	}
	return id, nil
}

// AuthorizerFieldSet reads the field set the authorizer found the caller's token bound to
// (token.FieldSetKey in its context; absent: every field), as AuthorizerIdentity reads the user.
func AuthorizerFieldSet(r *http.Request) token.FieldSet {
	gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || gw.Authorizer == nil {
		return token.FieldsAll
	}
	raw, ok := gw.Authorizer.Lambda[token.FieldSetKey]
	if !ok {
		return token.FieldsAll
	}
	fs, err := token.ParseFieldSet(fmt.Sprint(raw))
	if err != nil {
		return token.FieldsAll
	}
	return fs
}
