// Package store is Lorekeep's DynamoDB adapter: the only package that knows the single-table key
// schema. Every item of a campaign lives under keys that begin with that campaign, so no read or
// write can cross tenants; ids are allocated from atomic counters; list totals are counter items
// written in the same transaction as the records they count.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
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

// LoadAWSConfig builds the SDK configuration once (at cold start). Against a local endpoint it
// uses fixed dummy credentials, which DynamoDB Local accepts.
func LoadAWSConfig(ctx context.Context, c Config) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 5
				dynamo.RetryTxConflicts(o)
			})
		}),
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.Endpoint != "" {
		if c.Region == "" {
			opts = append(opts, config.WithRegion("us-east-1"))
		}
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("lorekeep", "lorekeep", "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if c.Endpoint != "" {
		cfg.BaseEndpoint = aws.String(c.Endpoint)
	}
	return cfg, nil
}

// Store reads and writes every Lorekeep record.
type Store struct {
	db    *dynamo.DB
	table dynamo.Table
	now   func() time.Time
}

// New wraps an SDK configuration; build it once per process.
func New(cfg aws.Config, tableName string) *Store {
	db := dynamo.New(cfg, func(o *dynamodb.Options) {
		// DynamoDB Local's CRC32 header does not match compressed bodies; AWS's does.
		if o.BaseEndpoint != nil {
			o.DisableValidateResponseChecksum = true
		}
	})
	return &Store{db: db, table: db.Table(tableName), now: func() time.Time { return time.Now().UTC() }}
}

// Key layout. Ids are zero-padded so that key order is id order.
func pad(id int64) string                     { return fmt.Sprintf("%012d", id) }
func campaignPK(cid int64) string             { return "CAMPAIGN#" + pad(cid) }
func recordSK(prefix string, id int64) string { return prefix + "#" + pad(id) }
func childPK(cid int64, parent string, id int64) string {
	return campaignPK(cid) + "#" + parent + "#" + pad(id)
}

const (
	metaSK    = "META"
	seqSK     = "SEQ"
	globalPK  = "GLOBAL"
	timestamp = domain.TimeLayout
)

func formatTime(t time.Time) string { return t.UTC().Format(timestamp) }
func parseTime(s string) time.Time {
	t, _ := time.Parse(timestamp, s)
	return t
}

// nextIDs atomically advances one or more id sequences of the item (pk, SEQ) and returns the new
// values in order: one round trip however many ids a write needs.
func (s *Store) nextIDs(ctx context.Context, pk string, names ...string) ([]int64, error) {
	u := s.table.Update("pk", pk).Range("sk", seqSK)
	for _, n := range names {
		u = u.Add(n, 1)
	}
	var raw dynamo.Item
	if err := u.Value(ctx, &raw); err != nil {
		return nil, wrap(err)
	}
	ids := make([]int64, len(names))
	for i, n := range names {
		if err := dynamo.Unmarshal(raw[n], &ids[i]); err != nil {
			return nil, err
		}
		if ids[i] <= 0 || ids[i] > domain.MaxID {
			return nil, fmt.Errorf("store: id sequence %s exhausted", n)
		}
	}
	return ids, nil
}

// wrap turns SDK failures into domain errors: throttling and outages are EUnavailable (503);
// a failed condition is a conflict; anything else stays an internal error.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return domain.ErrUnavailable
	}
	if dynamo.IsCondCheckFailed(err) {
		return domain.ErrConflict
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && (*r.Code == "ThrottlingError" || *r.Code == "ProvisionedThroughputExceeded" || *r.Code == "TransactionConflict") {
				return domain.ErrUnavailable
			}
		}
		return domain.ErrConflict
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
			"InternalServerError", "ServiceUnavailable", "ResourceNotFoundException", "TransactionInProgressException",
			"TransactionConflictException", "LimitExceededException":
			return unavailable(err)
		}
	}
	// Below the API: a refused connection, DNS, TLS, a 5xx, or retries exhausted on those.
	var ne net.Error
	var re *awshttp.ResponseError
	var me *retry.MaxAttemptsError
	if errors.As(err, &ne) || errors.As(err, &me) || (errors.As(err, &re) && re.HTTPStatusCode() >= 500) {
		return unavailable(err)
	}
	return err
}

func unavailable(err error) error {
	slog.Warn("dynamodb unavailable", "err", err)
	return domain.ErrUnavailable
}

// Client exposes the SDK client for table administration.
func (s *Store) Client() *dynamodb.Client {
	c, _ := s.db.Client().(*dynamodb.Client)
	return c
}

// Open loads the SDK configuration and builds a Store: the one call a main makes at cold start.
// tweak (optional) adjusts the SDK configuration, e.g. to count calls in tests.
func Open(ctx context.Context, c Config, tweak ...func(*aws.Config)) (*Store, error) {
	cfg, err := LoadAWSConfig(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, t := range tweak {
		t(&cfg)
	}
	return New(cfg, c.TableName), nil
}
