package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/lorekeep/lorekeep/shared/store"
)

// LambdaRecords converts a Lambda stream event into stream records.
func LambdaRecords(ev lambdaevents.DynamoDBEvent) []store.StreamRecord {
	out := make([]store.StreamRecord, 0, len(ev.Records))
	for _, r := range ev.Records {
		out = append(out, store.StreamRecord{EventName: r.EventName, Seq: r.Change.SequenceNumber,
			At: r.Change.ApproximateCreationDateTime.UTC(), Old: lambdaImage(r.Change.OldImage), New: lambdaImage(r.Change.NewImage)})
	}
	return out
}

func lambdaImage(m map[string]lambdaevents.DynamoDBAttributeValue) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = lambdaValue(v)
	}
	return out
}

func lambdaValue(v lambdaevents.DynamoDBAttributeValue) types.AttributeValue {
	switch v.DataType() {
	case lambdaevents.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}
	case lambdaevents.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}
	case lambdaevents.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}
	case lambdaevents.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}
	case lambdaevents.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}
	case lambdaevents.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}
	case lambdaevents.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}
	case lambdaevents.DataTypeList:
		l := v.List()
		out := make([]types.AttributeValue, len(l))
		for i, x := range l {
			out[i] = lambdaValue(x)
		}
		return &types.AttributeValueMemberL{Value: out}
	case lambdaevents.DataTypeMap:
		return &types.AttributeValueMemberM{Value: lambdaImage(v.Map())}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

func streamImageOf(m map[string]stypes.AttributeValue) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = streamValue(v)
	}
	return out
}

func streamValue(v stypes.AttributeValue) types.AttributeValue {
	switch x := v.(type) {
	case *stypes.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: x.Value}
	case *stypes.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: x.Value}
	case *stypes.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: x.Value}
	case *stypes.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: x.Value}
	case *stypes.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: x.Value}
	case *stypes.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: x.Value}
	case *stypes.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: x.Value}
	case *stypes.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			out[i] = streamValue(e)
		}
		return &types.AttributeValueMemberL{Value: out}
	case *stypes.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: streamImageOf(x.Value)}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

// StreamPollInterval is how often ReadStream asks each open shard for new records.
const StreamPollInterval = 250 * time.Millisecond

// ReadStream reads the table's change stream until ctx ends, as Lambda's event source mapping
// does on AWS: each shard's records in order, handed to handle a batch at a time; a batch handle
// fails is handed again (after a pause) before the shard moves on. It starts at the stream's
// current end (latest) or its oldest record.
func ReadStream(ctx context.Context, st *store.Store, tableName string, fromOldest bool, handle func(context.Context, []store.StreamRecord) error) error {
	desc, err := st.Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	if err != nil {
		return err
	}
	arn := aws.ToString(desc.Table.LatestStreamArn)
	if arn == "" {
		return fmt.Errorf("store: table %s has no stream", tableName)
	}
	cfg := st.Client().Options()
	sc := dynamodbstreams.New(dynamodbstreams.Options{Region: cfg.Region, BaseEndpoint: cfg.BaseEndpoint,
		Credentials: cfg.Credentials, HTTPClient: cfg.HTTPClient, Retryer: cfg.Retryer})
	iterators := map[string]*string{} // open shard -> next iterator
	done := map[string]bool{}
	handed := map[string]string{} // shard -> sequence number of the last record handled
	start := stypes.ShardIteratorTypeLatest
	if fromOldest {
		start = stypes.ShardIteratorTypeTrimHorizon
	}
	first := true
	tick := time.NewTicker(StreamPollInterval)
	defer tick.Stop()
	for {
		// New shards (a shard closes and its children open every few hours, and at once locally
		// when the stream is young): children start at their oldest record.
		ds, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		if err == nil {
			for _, sh := range ds.StreamDescription.Shards {
				id := aws.ToString(sh.ShardId)
				if _, open := iterators[id]; open || done[id] {
					continue
				}
				in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: sh.ShardId,
					ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
				if seq := handed[id]; seq != "" { // reopened: after what was handed
					in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(seq)
				} else if first {
					in.ShardIteratorType = start
				}
				it, err := sc.GetShardIterator(ctx, in)
				if err == nil {
					iterators[id] = it.ShardIterator
				}
			}
			first = false
		}
		for id, it := range iterators {
			if it == nil {
				delete(iterators, id)
				done[id] = true
				continue
			}
			out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(100)})
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				// An expired iterator, or one behind the shard's trim horizon (DynamoDB Local
				// answers this, under load, to a young shard's first TRIM_HORIZON iterator: the
				// webhook tests' lost deliveries), is reopened by the next DescribeStream after the
				// last record handled, or from the shard's oldest. Other errors retry the same one.
				var expired *stypes.ExpiredIteratorException
				var trimmed *stypes.TrimmedDataAccessException
				if errors.As(err, &expired) || errors.As(err, &trimmed) {
					delete(iterators, id)
				} else {
					slog.WarnContext(ctx, "stream read failed; trying again", "shard", id, "error", err)
				}
				continue
			}
			recs := make([]store.StreamRecord, 0, len(out.Records))
			for _, r := range out.Records {
				sr := store.StreamRecord{EventName: string(r.EventName), Seq: aws.ToString(r.Dynamodb.SequenceNumber),
					Old: streamImageOf(r.Dynamodb.OldImage), New: streamImageOf(r.Dynamodb.NewImage)}
				if r.Dynamodb.ApproximateCreationDateTime != nil {
					sr.At = r.Dynamodb.ApproximateCreationDateTime.UTC()
				}
				recs = append(recs, sr)
			}
			if len(recs) > 0 {
				if err := handle(ctx, recs); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					// Said, not swallowed: a batch that keeps failing holds its shard back.
					slog.WarnContext(ctx, "stream batch failed; handing it again", "shard", id, "records", len(recs), "error", err)
					continue // same iterator: the batch is handed again
				}
			}
			if len(recs) > 0 {
				handed[id] = recs[len(recs)-1].Seq
			}
			iterators[id] = out.NextShardIterator
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
