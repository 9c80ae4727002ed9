package awsdb

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go/middleware"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// Failing fast: a request answers 503 within about 2 s when DynamoDB is unreachable or throttles,
// well inside the Lambda timeout, instead of waiting out the SDK's defaults (5 attempts, up to 20 s
// of backoff, a 30 s dial). The per-request deadline (httpapi.Options.Timeout) bounds the rest.
const (
	maxAttempts = 3                      // one call and two retries
	maxBackoff  = 200 * time.Millisecond // between attempts, throttling included
	dialTimeout = 500 * time.Millisecond // DynamoDB is one hop away; a slow connect is an outage
	tlsTimeout  = time.Second
)

func newRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.MaxBackoff = maxBackoff
		o.Backoff = retry.NewExponentialJitterBackoff(maxBackoff)
		dynamo.RetryTxConflicts(o)
	})
}

func newHTTPClient() aws.HTTPClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = dialTimeout }).
		WithTransportOptions(func(t *http.Transport) { t.TLSHandshakeTimeout = tlsTimeout })
}

// countCalls reports every DynamoDB operation (retries included in one) to the request's
// telemetry record, with its error: the "dynamodb_calls" of the request log.
func countCalls(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("lorekeep-telemetry", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		if err != nil {
			err = fmt.Errorf("%s: %w", middleware.GetOperationName(ctx), err)
		}
		telemetry.From(ctx).DBCall(err)
		return out, md, err
	}), middleware.After)
}
