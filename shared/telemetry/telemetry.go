// Package telemetry carries what one request's log line reports through its context: the parts
// of the request that deeper layers learn (user, campaign), the DynamoDB calls the store
// made for it, the capacity they consumed and the cause of a failure. It has no dependencies, so the store, the HTTP layer
// and the Lambda adapter can all fill in the same record.
package telemetry

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
)

// Record is what one request did. Its methods are safe for concurrent use (the store runs
// independent reads at once) and do nothing on a nil Record.
type Record struct {
	mu         sync.Mutex
	userID     int64
	campaignID int64
	dbCalls    int
	readUnits  float64
	writeUnits float64
	dbErr      error
	err        error
}

type key struct{}

// With returns a context carrying a new Record.
func With(ctx context.Context) (context.Context, *Record) {
	r := &Record{}
	return context.WithValue(ctx, key{}, r), r
}

// From is the Record of ctx, nil when there is none (an admin command, a cold start).
func From(ctx context.Context) *Record {
	r, _ := ctx.Value(key{}).(*Record)
	return r
}

// User sets the authenticated caller.
func (r *Record) User(id int64) {
	if r != nil {
		r.mu.Lock()
		r.userID = id
		r.mu.Unlock()
	}
}

// Campaign sets the campaign of the path.
func (r *Record) Campaign(id int64) {
	if r != nil {
		r.mu.Lock()
		r.campaignID = id
		r.mu.Unlock()
	}
}

// DBCall counts one DynamoDB operation (its retries are one call) and keeps the first failure.
func (r *Record) DBCall(err error) {
	if r != nil {
		r.mu.Lock()
		r.dbCalls++
		if err != nil && r.dbErr == nil {
			r.dbErr = err
		}
		r.mu.Unlock()
	}
}

// Capacity adds the read and write capacity units one DynamoDB operation consumed.
func (r *Record) Capacity(read, write float64) {
	if r != nil {
		r.mu.Lock()
		r.readUnits += read
		r.writeUnits += write
		r.mu.Unlock()
	}
}

// Fail keeps the cause of an internal error (the first one).
func (r *Record) Fail(err error) {
	if r != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
}

// Snapshot is a copy of a Record's fields.
type Snapshot struct {
	UserID     int64
	CampaignID int64
	DBCalls    int
	ReadUnits  float64
	WriteUnits float64
	DBErr      error
	Err        error
}

// Snapshot copies the record.
func (r *Record) Snapshot() Snapshot {
	if r == nil {
		return Snapshot{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return Snapshot{UserID: r.userID, CampaignID: r.campaignID, DBCalls: r.dbCalls, ReadUnits: r.readUnits,
		WriteUnits: r.writeUnits, DBErr: r.dbErr, Err: r.err}
}

// lambdaTraceKey is where aws-lambda-go puts the invocation's X-Ray trace header
// ("Root=1-...;Parent=...;Sampled=1") in the handler's context; the API Gateway adapter keeps
// that context as the request's.
const lambdaTraceKey = "x-amzn-trace-id"

// TraceID is the X-Ray trace id (the header's Root) of the Lambda invocation serving ctx, ""
// outside Lambda. It is the id X-Ray's console and CloudWatch's trace search look up.
func TraceID(ctx context.Context) string {
	h, _ := ctx.Value(lambdaTraceKey).(string)
	_, root, ok := strings.Cut(h, "Root=")
	if !ok {
		return ""
	}
	root, _, _ = strings.Cut(root, ";")
	return root
}

// fanoutKey marks a context whose DynamoDB calls are sent concurrently, as one round trip.
type fanoutKey struct{}

var fanouts atomic.Int64

// Fanout marks ctx for calls sent concurrently (by the store, or by a family reading through
// several ports at once): a client waits for them as for one round trip, however the scheduler
// happens to start them. A later step that depends on their answers marks its own. Counters
// that measure round trips (dynamotest) read the mark; DynamoDB never sees it.
func Fanout(ctx context.Context) context.Context {
	return context.WithValue(ctx, fanoutKey{}, fanouts.Add(1))
}

// FanoutOf is ctx's Fanout mark, 0 when it has none.
func FanoutOf(ctx context.Context) int64 {
	id, _ := ctx.Value(fanoutKey{}).(int64)
	return id
}
