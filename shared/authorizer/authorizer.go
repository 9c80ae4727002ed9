// Package authorizer is the API Gateway Lambda authorizer: bearer token in, user id (and the
// field set the token is bound to) out, and nothing more (see package lambdaapi for why it
// always answers isAuthorized). It imports only the token leaf packages and the SDK, so its
// binary links neither the HTML sanitiser nor the calendar engine nor the document store.
package authorizer

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/gcpolicy"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/store/tokens"
	"github.com/lorekeep/lorekeep/shared/telemetry"
	"github.com/lorekeep/lorekeep/shared/token"
)

// UserIDKey is the authorizer context key holding the caller's user id (token.UserIDKey).
const UserIDKey = token.UserIDKey

// Serve is the authorizer Lambda's whole main: JSON logs, the token table, built once.
func Serve() {
	gcpolicy.ForLambda(os.Getenv)
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	lambda.Start(Handler(tokens.Open(awsdb.ConfigFromEnv(os.Getenv)), time.Now))
}

// Handler returns the authorizer Lambda's handler. A storage outage is returned as an error,
// so API Gateway does not cache it and the next request tries again.
func Handler(tokens token.Store, now func() time.Time) func(context.Context, events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
	return func(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
		start := time.Now()
		ctx, rec := telemetry.With(ctx)
		uid, fields, err := authenticate(ctx, tokens, req, now())
		// One JSON line per invocation, like the functions' request lines.
		s := rec.Snapshot()
		attrs := []slog.Attr{slog.String("request_id", req.RequestContext.RequestID), slog.String("route", req.RouteKey),
			slog.Int64("user_id", uid), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.Int("dynamodb_calls", s.DBCalls)}
		switch {
		case err == nil:
			slog.LogAttrs(ctx, slog.LevelInfo, "authorize", append(attrs, slog.Bool("authenticated", true))...)
			identity := map[string]any{UserIDKey: strconv.FormatInt(uid, 10)}
			if fields != token.FieldsAll {
				identity[token.FieldSetKey] = string(fields)
			}
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: identity}, nil
		case errors.Is(err, apperr.ErrUnauthenticated):
			slog.LogAttrs(ctx, slog.LevelInfo, "authorize", append(attrs, slog.Bool("authenticated", false))...)
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: map[string]any{}}, nil
		default:
			if s.DBErr != nil {
				attrs = append(attrs, slog.String("dynamodb_error", s.DBErr.Error()))
			}
			slog.LogAttrs(ctx, slog.LevelError, "authorize", append(attrs, slog.String("error", err.Error()))...)
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, err
		}
	}
}

// authenticate reads the token of the Authorization header (or the identity source): its user
// and the field set it is bound to.
func authenticate(ctx context.Context, tokens token.Store, req events.APIGatewayV2CustomAuthorizerV2Request, now time.Time) (int64, token.FieldSet, error) {
	header := ""
	for k, v := range req.Headers {
		if strings.EqualFold(k, "authorization") {
			header = v
		}
	}
	if header == "" && len(req.IdentitySource) > 0 {
		header = req.IdentitySource[0]
	}
	uid, err := token.Authenticate(ctx, tokens, header, now)
	if err != nil {
		return 0, token.FieldsAll, err
	}
	return uid, token.FieldSetOf(token.Bearer(header)), nil
}
