// Package awsdb is the connection to DynamoDB that every binary shares: where the table is, the
// SDK configuration (bounded retries, short timeouts, per-request call counting) and the one
// mapping of SDK failures to Lorekeep's errors. It builds the configuration from the environment
// without the SDK's config package (shared credentials files, SSO, STS...), which would add
// about 1.8 MB to each Lambda for nothing: Lambda passes its credentials in the environment.
package awsdb

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Config says where the table is. An empty Endpoint means real AWS.
type Config struct {
	TableName string
	Endpoint  string
	Region    string
}

// ConfigFromEnv reads TABLE_NAME (default "lorekeep"), DYNAMODB_ENDPOINT and AWS_REGION.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{TableName: getenv("TABLE_NAME"), Endpoint: getenv("DYNAMODB_ENDPOINT"), Region: getenv("AWS_REGION")}
	if c.TableName == "" {
		c.TableName = "lorekeep"
	}
	return c
}

// AWSConfig builds the SDK configuration once (at cold start). Against a local endpoint it uses
// fixed dummy credentials, which DynamoDB Local accepts; otherwise the credentials of the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), as Lambda sets them.
func AWSConfig(c Config) aws.Config {
	cfg := aws.Config{Region: c.Region}
	if c.Endpoint != "" {
		if cfg.Region == "" {
			cfg.Region = "us-east-1"
		}
		cfg.BaseEndpoint = aws.String(c.Endpoint)
		cfg.Credentials = credentials.NewStaticCredentialsProvider("lorekeep", "lorekeep", "")
	} else {
		cfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
			os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")))
	}
	Apply(&cfg)
	return cfg
}

// Apply sets Lorekeep's retries, HTTP client and call counting on a configuration (one the
// admin command loaded with the SDK's full credential chain, for instance).
func Apply(cfg *aws.Config) {
	cfg.Retryer = newRetryer
	cfg.HTTPClient = newHTTPClient()
	cfg.APIOptions = append(cfg.APIOptions, countCalls)
}

// Wrap turns SDK failures into Lorekeep's errors: throttling and outages are EUnavailable
// (503); a failed condition is a conflict; anything else stays an internal error.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	var de *apperr.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return apperr.ErrUnavailable
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return apperr.ErrConflict
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		// A transaction that lost to a concurrent one is contention, not an outage: a conflict,
		// which the write path retries on fresh data and otherwise answers 409 with Retry-After.
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && (*r.Code == "ConditionalCheckFailed" || *r.Code == "TransactionConflict") {
				return apperr.ErrConflict
			}
		}
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && (*r.Code == "ThrottlingError" || *r.Code == "ProvisionedThroughputExceeded") {
				return apperr.ErrUnavailable
			}
		}
		return apperr.ErrConflict
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "TransactionConflictException":
			return apperr.ErrConflict
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
			"InternalServerError", "ServiceUnavailable", "ResourceNotFoundException", "TransactionInProgressException",
			"LimitExceededException":
			return apperr.ErrUnavailable // the request's log line carries the cause
		}
	}
	// Below the API: a refused connection, DNS, TLS, a 5xx, or retries exhausted on those.
	var ne net.Error
	var re *awshttp.ResponseError
	var me *retry.MaxAttemptsError
	if errors.As(err, &ne) || errors.As(err, &me) || (errors.As(err, &re) && re.HTTPStatusCode() >= 500) {
		return apperr.ErrUnavailable
	}
	return err
}

// OutcomeUnknown reports whether a write that failed with err may have happened all the same:
// its answer was lost (a dropped connection, a timeout, a 5xx) or it is still in progress.
// DynamoDB's refusals (a cancelled transaction, throttling, a bad request) wrote nothing.
func OutcomeUnknown(err error) bool {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return false
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "TransactionInProgressException", "InternalServerError", "ServiceUnavailable", "RequestTimeout":
			return true
		}
		return false
	}
	var ne net.Error
	var re *awshttp.ResponseError
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) ||
		(errors.As(err, &re) && re.HTTPStatusCode() >= 500)
}
