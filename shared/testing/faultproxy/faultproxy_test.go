package faultproxy_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// setup returns a client without SDK retries (so each call is one HTTP call) through a proxy.
func setup(t *testing.T) (*faultproxy.Proxy, *dynamodb.Client, string) {
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	st, cfg := dynamotest.NewStore(t, p.Attach, func(c *aws.Config) {
		c.Retryer = func() aws.Retryer { return aws.NopRetryer{} }
	})
	p.Reset()
	return p, st.Client(), cfg.TableName
}

func item(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: "x"}}
}

func TestForwardsAndCountsPerOperation(t *testing.T) {
	t.Parallel()
	p, db, table := setup(t)
	ctx := context.Background()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item("a")}); err != nil {
		t.Fatal(err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: item("a")})
	if err != nil || out.Item == nil {
		t.Fatalf("get through proxy: %v %v", out, err)
	}
	if p.Calls("PutItem") != 1 || p.Calls("DynamoDB_20120810.GetItem") != 1 || p.Calls("") != 2 || p.Faults("") != 0 {
		t.Fatalf("counters: %v", p.CallsByOp())
	}
}

func TestAnswersDynamoDBErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fault  faultproxy.Fault
		code   string
		status int
	}{
		{"throttling", faultproxy.Throttling, "ThrottlingException", 400},
		{"provisioned throughput", faultproxy.ProvisionedThroughputExceeded, "ProvisionedThroughputExceededException", 400},
		{"internal server error", faultproxy.InternalServerError, "InternalServerError", 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, db, table := setup(t)
			p.Inject(faultproxy.Rule{Op: "GetItem", Fault: tc.fault})
			_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: item("a")})
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != tc.code {
				t.Fatalf("error %v, want code %s", err, tc.code)
			}
			var re interface{ HTTPStatusCode() int }
			if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status {
				t.Fatalf("status of %v, want %d", err, tc.status)
			}
			// Other operations pass.
			if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: item("a")}); err != nil {
				t.Fatal(err)
			}
			if p.Faults("GetItem") != 1 || p.Faults("PutItem") != 0 {
				t.Fatalf("faults: GetItem %d PutItem %d", p.Faults("GetItem"), p.Faults("PutItem"))
			}
		})
	}
}

func TestTransactionCanceledCarriesReasons(t *testing.T) {
	t.Parallel()
	p, db, table := setup(t)
	p.Inject(faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.TransactionCanceled("None", "ConditionalCheckFailed")})
	_, err := db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &table, Item: item("a")}},
		{Put: &types.Put{TableName: &table, Item: item("b")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" {
		t.Fatalf("error %v, want TransactionCanceledException with 2 reasons", err)
	}
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: &table})
	if err != nil || out.Count != 0 {
		t.Fatalf("a canceled transaction wrote %d items (%v)", out.Count, err)
	}
}

func TestFaultsOnlyTheNamedCalls(t *testing.T) {
	t.Parallel()
	p, db, table := setup(t)
	p.Inject(faultproxy.Rule{Op: "PutItem", Calls: []int{2}, Fault: faultproxy.Throttling})
	var errs []error
	for _, pk := range []string{"a", "b", "c"} {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: item(pk)})
		errs = append(errs, err)
	}
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("errors %v, want only the second call to fail", errs)
	}
}

func TestDropsTheConnection(t *testing.T) {
	t.Parallel()
	p, db, table := setup(t)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Drop})
	_, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: item("a")})
	var ae smithy.APIError
	if err == nil || errors.As(err, &ae) {
		t.Fatalf("error %v, want a transport error", err)
	}
}

func TestDelayOutlastsTheCallersDeadline(t *testing.T) {
	t.Parallel()
	p, db, table := setup(t)
	p.Inject(faultproxy.Rule{Op: "GetItem", Fault: faultproxy.Delay(time.Minute)})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: item("a")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the deadline", err)
	}
}
