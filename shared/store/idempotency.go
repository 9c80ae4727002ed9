package store

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Idempotency keys. The record of a key is one item per user, campaign and key, outside the
// campaign's partitions (the audit and the migration do not see it):
//
//	pk IDEMPOTENCY#<cid>#<uid>   sk KEY#<key>
//
// holding the request's fingerprint, the answer's status and its body (gzip), and `ttl` (epoch
// seconds, the end of the window): the table's TTL attribute, so DynamoDB removes it on AWS,
// some time after it ends; reads ignore an expired record meanwhile (and DynamoDB Local never
// removes it), and a write may replace it. It is written in the transaction of the write it
// answers, on condition that no live record holds the key.

// maxReplayBytes bounds the compressed answer stored with a key: with the rest of the item
// it stays under DynamoDB's 400 KB item limit. An answer beyond it (only a record near every
// size limit with an incompressible entry) cannot be keyed: 422, nothing written.
const maxReplayBytes = 350_000

type replayItem struct {
	PK          string `dynamo:"pk"`
	SK          string `dynamo:"sk"`
	Fingerprint string `dynamo:"fingerprint"`
	Status      int    `dynamo:"status"`
	Body        []byte `dynamo:"body"`
	CreatedAt   string `dynamo:"created_at"`
	TTL         int64  `dynamo:"ttl"`
}

// Replay reads the live record of a key (nil when there is none), strongly consistent.
func (s *Store) Replay(ctx context.Context, cid, uid int64, key string) (*domain.Replay, error) {
	k := layout.ReplayKey(cid, uid, key)
	items, err := s.batchGet(ctx, true, k)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	var it replayItem
	if err := dynamo.UnmarshalItem(items[0], &it); err != nil {
		return nil, err
	}
	if it.TTL <= s.now().Unix() {
		return nil, nil
	}
	return &domain.Replay{Fingerprint: it.Fingerprint, Status: it.Status, Body: it.Body}, nil
}

// SaveReplay stores the outcome of a keyed write that sent no transaction of its own (one
// that finished a pending delete): ErrKeyInUse when a live record holds the key.
func (s *Store) SaveReplay(ctx context.Context, kw *domain.KeyedWrite, body []byte) error {
	put, err := s.replayPut(kw, body)
	if err != nil {
		return err
	}
	b := s.newTx() // a transaction of one item: its refusal says which condition failed
	b.put(put)
	err = b.s.send(ctx, b.tx)
	if canceledAt(err, 0) {
		return domain.ErrKeyInUse
	}
	if err == nil {
		kw.Commit(body)
	}
	return layout.Wrap(err)
}

// replayPut is the conditional put of a key's record answering body (status 200: only a write
// that succeeded is recorded).
func (s *Store) replayPut(kw *domain.KeyedWrite, body []byte) (*dynamo.Put, error) {
	if len(body) > maxReplayBytes {
		return nil, domain.InvalidKey("The " + domain.IdempotencyHeader + " header cannot be used for an answer larger than " +
			strconv.Itoa(maxReplayBytes/1000) + " KB compressed; send the request without it.")
	}
	k := layout.ReplayKey(kw.CampaignID, kw.UserID, kw.Key)
	now := s.now()
	it := replayItem{PK: k.PK, SK: k.SK, Fingerprint: kw.Fingerprint, Status: 200, Body: body,
		CreatedAt: layout.FormatTime(now), TTL: kw.Expires.Unix()}
	return s.table.Put(it).If("attribute_not_exists(pk) OR 'ttl' <= ?", now.Unix()), nil
}

// keyedPut adds the record of the request's key to the transaction about to be sent, when one
// is due: its item index, or -1.
func (b *txBuilder) keyedPut(ctx context.Context, items int) (int, []byte, error) {
	kw := domain.KeyedWriteOf(ctx)
	if kw == nil {
		return -1, nil, nil
	}
	body, due, err := kw.Pending()
	if err != nil || !due {
		return -1, nil, err
	}
	put, err := b.s.replayPut(kw, body)
	if err != nil {
		return -1, nil, err
	}
	b.tx.Put(put)
	return items, body, nil
}

// A transaction, once sent, is waited for: the request's deadline may pass, the answer may be
// lost, but the client must be told what happened, never "unavailable" (nothing written) for a
// write that committed. send gives the transaction a ClientRequestToken, so that sending it
// again is idempotent and answers its outcome (for 10 minutes, on AWS and DynamoDB Local
// alike), and waits for that outcome on a context detached from the request's deadline, at
// most outcomeWait: with the request deadline (1.8 s) well inside the Lambda timeout (10 s).
const (
	outcomeWait   = 4 * time.Second
	outcomeResend = 100 * time.Millisecond // between re-sends of a transaction whose outcome is unknown
)

func (s *Store) send(ctx context.Context, tx *dynamo.WriteTx) error {
	if err := ctx.Err(); err != nil {
		return err // not sent: nothing written
	}
	tx.Idempotent(true)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), outcomeWait)
	defer cancel()
	// A re-send must be the same request byte for byte (DynamoDB refuses a token with other
	// parameters), and the builder's update expressions follow map order: keep what was sent.
	sent := &txCapture{}
	err := tx.Run(context.WithValue(wctx, txCaptureKey{}, sent))
	for err != nil && outcomeUnknown(err) && sent.in != nil {
		t := time.NewTimer(outcomeResend)
		select {
		case <-t.C:
		case <-wctx.Done():
			t.Stop()
			return err
		}
		_, err = s.Client().TransactWriteItems(wctx, sent.in)
	}
	return err
}

type txCaptureKey struct{}

// txCapture holds the TransactWriteItems input a builder sent.
type txCapture struct {
	in *dynamodb.TransactWriteItemsInput
}

// captureTx records, for send, the input of a TransactWriteItems whose context asks for it.
func captureTx(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("lorekeep-capture-tx", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if c, ok := ctx.Value(txCaptureKey{}).(*txCapture); ok {
				if p, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
					c.in = p
				}
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
	})
}

func outcomeUnknown(err error) bool { return awsdb.OutcomeUnknown(err) }
