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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// Failing fast: a request answers 503 within about 2 s when DynamoDB is unreachable or throttles,
// well inside the Lambda timeout, instead of waiting out the SDK's defaults (5 attempts, up to 20 s
// of backoff, a 30 s dial). The per-request deadline (httpapi.Options.Timeout) bounds the rest.
const (
	maxAttempts = 3                      // one call and two retries, waiting apperr.Backoff between them
	dialTimeout = 500 * time.Millisecond // DynamoDB is one hop away; a slow connect is an outage
	tlsTimeout  = time.Second
)

func newRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.MaxBackoff = apperr.BackoffCap
		o.Backoff = backoff{}
		dynamo.RetryTxConflicts(o)
	})
}

// backoff makes the SDK's retries of throttled and failed calls wait by the writes' policy
// (apperr.Backoff), at its widest window (up to apperr.BackoffCap): a throttled or unreachable
// DynamoDB needs the time more than a lost race does, and a call has only two retries.
type backoff struct{}

func (backoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	return apperr.Backoff(attempt + callRetryShift), nil
}

// callRetryShift puts a call's first retry where a write's window reaches apperr.BackoffCap.
const callRetryShift = 5

func newHTTPClient() aws.HTTPClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = dialTimeout }).
		WithTransportOptions(func(t *http.Transport) { t.TLSHandshakeTimeout = tlsTimeout })
}

// countCalls reports every DynamoDB operation (retries included in one) to the request's
// telemetry record, with its error and the capacity it consumed: the "dynamodb_calls" and
// "dynamodb_read_units"/"dynamodb_write_units" of the request log. DynamoDB reports the
// capacity in the answer when asked (ReturnConsumedCapacity), so it costs no call.
func countCalls(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("lorekeep-telemetry", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		rec := telemetry.From(ctx)
		if rec != nil {
			askCapacity(in.Parameters)
		}
		out, md, err := next.HandleInitialize(ctx, in)
		if err != nil {
			err = fmt.Errorf("%s: %w", middleware.GetOperationName(ctx), err)
		}
		rec.DBCall(err)
		rec.Capacity(consumedUnits(out.Result))
		return out, md, err
	}), middleware.After)
}

// askCapacity sets ReturnConsumedCapacity=TOTAL on the input of each data operation the store
// makes (a type switch: no reflection on every call).
func askCapacity(params any) {
	const total = types.ReturnConsumedCapacityTotal
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = total
	}
}

// consumedUnits sums the read and the write capacity units an operation's output reports (one
// table, or several for batches and transactions).
func consumedUnits(result any) (read, write float64) {
	var cs []types.ConsumedCapacity
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.QueryOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.BatchGetItemOutput:
		for i := range out.ConsumedCapacity {
			read += units(&out.ConsumedCapacity[i])
		}
		return read, 0
	case *dynamodb.PutItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		cs = out.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		cs = out.ConsumedCapacity
	}
	for i := range cs {
		write += units(&cs[i])
	}
	return 0, write
}

func units(c *types.ConsumedCapacity) float64 {
	if c == nil {
		return 0
	}
	return aws.ToFloat64(c.CapacityUnits)
}
