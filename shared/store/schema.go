package store

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GSI1 is the secondary index of events by calendar (gsi1pk CAMPAIGN#c#CALENDAR#id). (Layout 1
// also indexed locations by parent, CAMPAIGN#c#PARENT#l; layout 2 links children in their
// parent's partition instead, strongly consistent.)
const GSI1 = "gsi1"

// CreateTable creates the table if it is missing and waits until it is active. template.yaml
// declares the same schema for AWS.
func CreateTable(ctx context.Context, client *dynamodb.Client, name string) (created bool, err error) {
	return createTable(ctx, client, name, streamSpec)
}

// CreateTableWithoutStream is CreateTable with no change stream, for tests that fire no
// webhooks: DynamoDB Local slows down several times over with a stream on each of the
// hundreds of tables a test run makes. CreateTable on the same table turns its stream on.
func CreateTableWithoutStream(ctx context.Context, client *dynamodb.Client, name string) (created bool, err error) {
	return createTable(ctx, client, name, nil)
}

func createTable(ctx context.Context, client *dynamodb.Client, name string, stream *types.StreamSpecification) (created bool, err error) {
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err == nil {
		if stream == nil {
			return false, nil
		}
		return false, enableStream(ctx, client, desc.Table)
	}
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		return false, err
	}
	str := types.ScalarAttributeTypeS
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:           aws.String(name),
		BillingMode:         types.BillingModePayPerRequest,
		StreamSpecification: stream,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: str},
			{AttributeName: aws.String("sk"), AttributeType: str},
			{AttributeName: aws.String("gsi1pk"), AttributeType: str},
			{AttributeName: aws.String("gsi1sk"), AttributeType: str},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(GSI1),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("gsi1pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("gsi1sk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	w := dynamodb.NewTableExistsWaiter(client)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 60e9); err != nil {
		return true, err
	}
	return true, nil
}

// streamSpec is the table's change stream, which webhooks are fired from (package webhooks):
// both images, so that a deleted record's name and a calendar's previous date are known.
var streamSpec = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}

// enableStream turns the change stream on for a table created before webhooks existed.
func enableStream(ctx context.Context, client *dynamodb.Client, t *types.TableDescription) error {
	if t.StreamSpecification != nil && aws.ToBool(t.StreamSpecification.StreamEnabled) {
		return nil
	}
	_, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: t.TableName, StreamSpecification: streamSpec})
	if err != nil {
		return err
	}
	w := dynamodb.NewTableExistsWaiter(client)
	return w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: t.TableName}, 60e9)
}

// EnsureTTL turns on expiry by attribute `ttl` (the template's TimeToLiveSpecification) when
// it is off, as on a table made locally: idempotent, it reads the setting first.
func EnsureTTL(ctx context.Context, client *dynamodb.Client, name string) error {
	d, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return err
	}
	if s := d.TimeToLiveDescription; s != nil && (s.TimeToLiveStatus == types.TimeToLiveStatusEnabled || s.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	return err
}
