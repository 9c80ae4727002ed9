// Package store is Lorekeep's DynamoDB adapter: the only package that knows the single-table key
// schema. Every item of a campaign lives under keys that begin with that campaign, so no read or
// write can cross tenants; ids are allocated from atomic counters; list totals are counter items
// written in the same transaction as the records they count.
package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/store/tokens"
)

// Config says where the table is (awsdb.Config). An empty Endpoint means real AWS.
type Config = awsdb.Config

// ConfigFromEnv reads TABLE_NAME (default "lorekeep"), DYNAMODB_ENDPOINT and AWS_REGION.
func ConfigFromEnv(getenv func(string) string) Config { return awsdb.ConfigFromEnv(getenv) }

// Store reads and writes every Lorekeep record.
type Store struct {
	db    *dynamo.DB
	table dynamo.Table
	now   func() time.Time
}

// New wraps an SDK configuration; build it once per process.
func New(cfg aws.Config, tableName string) *Store {
	db := dynamo.New(cfg, tokens.LocalOptions(cfg.BaseEndpoint != nil))
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

// wrap turns SDK failures into domain errors (one mapping, in awsdb).
func wrap(err error) error { return awsdb.Wrap(err) }

// Client exposes the SDK client for table administration.
func (s *Store) Client() *dynamodb.Client {
	c, _ := s.db.Client().(*dynamodb.Client)
	return c
}

// Open loads the SDK configuration and builds a Store: the one call a main makes at cold start.
// tweak (optional) adjusts the SDK configuration, e.g. to count calls in tests.
func Open(ctx context.Context, c Config, tweak ...func(*aws.Config)) (*Store, error) {
	cfg := awsdb.AWSConfig(c)
	for _, t := range tweak {
		t(&cfg)
	}
	return New(cfg, c.TableName), nil
}
