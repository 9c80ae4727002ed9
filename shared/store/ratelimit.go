package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Rate items: one per caller, pk "RATE#<caller>", sk "RATE", holding the caller's TAT
// (domain.RateBucket) in microseconds since the epoch, and a ttl a window past it so that idle
// callers' items expire.

// rateAttempts bounds the conditional writes of one TakeRate: the first guesses the bucket's
// state from this instance's last answer for the caller; a wrong guess (another instance served
// the caller meanwhile) learns the state from the failed write itself.
const rateAttempts = 3

// TakeRate counts one request of caller against its bucket, shared by every instance through
// the table: one conditional UpdateItem, two when this instance's guess of the bucket's state
// is wrong. It answers the requests remaining, or how long to wait when none is; a refused
// request takes no token.
func (s *Store) TakeRate(ctx context.Context, caller string, b domain.RateBucket, now time.Time) (remaining int, wait time.Duration, err error) {
	nowUS, tolerance := now.UnixMicro(), b.Tolerance().Microseconds()
	in := &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table.Name()),
		Key:                                 map[string]types.AttributeValue{"pk": str(layout.RatePK(caller)), "sk": str(layout.RateSK)},
		ReturnValues:                        types.ReturnValueUpdatedNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
	}
	tat := s.rateHint(caller)
	for range rateAttempts {
		// The TAT is at most now + Window: the item expires a Window after that.
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":i": num(b.Interval().Microseconds()), ":now": num(nowUS), ":ttl": num(now.Add(2 * b.Window).Unix())}
		if tat > nowUS { // TAT ahead of now: it moves on by one interval, if within the tolerance
			in.UpdateExpression = aws.String("SET tat = tat + :i, #ttl = :ttl")
			in.ConditionExpression = aws.String("tat > :now AND tat <= :limit")
			in.ExpressionAttributeValues[":limit"] = num(nowUS + tolerance)
		} else { // TAT passed (or none): the bucket is full; the next TAT is one interval from now
			in.UpdateExpression = aws.String("SET tat = :now + :i, #ttl = :ttl")
			in.ConditionExpression = aws.String("attribute_not_exists(tat) OR tat <= :now")
		}
		out, err := s.Client().UpdateItem(ctx, in)
		var ccf *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &ccf):
			tat = microsOf(ccf.Item) // the bucket as another instance left it
			if tat > nowUS+tolerance {
				s.setRateHint(caller, tat)
				return 0, b.Wait(time.UnixMicro(tat), now), nil
			}
		case err != nil:
			return 0, 0, layout.Wrap(err)
		default:
			tat = microsOf(out.Attributes)
			s.setRateHint(caller, tat)
			return b.Remaining(time.UnixMicro(tat), now), 0, nil
		}
	}
	// The bucket changed under every attempt: callers this busy wait a moment.
	return 0, 0, apperr.ErrConflict
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func microsOf(item map[string]types.AttributeValue) int64 {
	n, _ := item["tat"].(*types.AttributeValueMemberN)
	if n == nil {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

// maxRateHints bounds the instance's memory of callers' buckets; past it, it starts over (a
// forgotten caller costs one more write at worst).
const maxRateHints = 10000

func (s *Store) rateHint(caller string) int64 {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	return s.rateHints[caller]
}

func (s *Store) setRateHint(caller string, tat int64) {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	if s.rateHints == nil || len(s.rateHints) >= maxRateHints {
		s.rateHints = map[string]int64{}
	}
	s.rateHints[caller] = tat
}
