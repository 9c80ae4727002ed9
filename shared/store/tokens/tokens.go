// Package tokens reads and writes the token items of the table (the store's key layout for
// them lives here). It uses the plain SDK client with only the three operations it needs, so
// the authorizer Lambda, which imports this and nothing else of the store, stays small.
package tokens

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
	"github.com/lorekeep/lorekeep/shared/token"
)

// API is the part of the DynamoDB client tokens use.
type API interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Table holds the token items of one table.
type Table struct {
	DB   API
	Name string
}

// Open builds the client from the configuration: the authorizer's one call at cold start.
func Open(c awsdb.Config) Table {
	return Table{DB: dynamodb.NewFromConfig(awsdb.AWSConfig(c), LocalOptions(c.Endpoint != "")), Name: c.TableName}
}

// LocalOptions disables response checksums against DynamoDB Local, whose CRC32 header does not
// match compressed bodies (AWS's does).
func LocalOptions(local bool) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		if local {
			o.DisableValidateResponseChecksum = true
		}
	}
}

// timeLayout is how token times are stored (the domain's timestamp layout).
const timeLayout = "2006-01-02T15:04:05.000000Z"

func key(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "TOKEN#" + hash}, "sk": &types.AttributeValueMemberS{Value: "TOKEN"}}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// Put stores a new token (its hash only).
func (t Table) Put(ctx context.Context, tok token.Token) error {
	item := key(tok.Hash)
	item["user_id"], item["jti"], item["issued_at"] = n(tok.UserID), s(tok.JTI), s(tok.IssuedAt.UTC().Format(timeLayout))
	item["revoked"] = &types.AttributeValueMemberBOOL{Value: false}
	if !tok.ExpiresAt.IsZero() {
		item["expires_at"] = s(tok.ExpiresAt.UTC().Format(timeLayout))
		item["ttl"] = n(tok.ExpiresAt.Unix() + 7*24*3600) // DynamoDB drops it a week after expiry
	}
	_, err := t.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t.Name, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	return awsdb.Wrap(err)
}

// Get implements token.Store; strongly consistent, so a revocation is seen at once (on AWS the
// authorizer's cache still answers for its TTL). A missing token is (nil, nil).
func (t Table) Get(ctx context.Context, hash string) (*token.Token, error) {
	out, err := t.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &t.Name, Key: key(hash), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, awsdb.Wrap(err)
	}
	if out.Item == nil {
		return nil, nil
	}
	tok := &token.Token{Hash: hash}
	if v, ok := out.Item["user_id"].(*types.AttributeValueMemberN); ok {
		tok.UserID, _ = strconv.ParseInt(v.Value, 10, 64)
	}
	if v, ok := out.Item["jti"].(*types.AttributeValueMemberS); ok {
		tok.JTI = v.Value
	}
	if v, ok := out.Item["issued_at"].(*types.AttributeValueMemberS); ok {
		tok.IssuedAt, _ = time.Parse(timeLayout, v.Value)
	}
	if v, ok := out.Item["expires_at"].(*types.AttributeValueMemberS); ok && v.Value != "" {
		tok.ExpiresAt, _ = time.Parse(timeLayout, v.Value)
	}
	if v, ok := out.Item["revoked"].(*types.AttributeValueMemberBOOL); ok {
		tok.Revoked = v.Value
	}
	return tok, nil
}

// GetToken is Get under the name token.Store asks for.
func (t Table) GetToken(ctx context.Context, hash string) (*token.Token, error) {
	return t.Get(ctx, hash)
}

// Revoke marks a stored token revoked; apperr.ErrNotFound when there is none.
func (t Table) Revoke(ctx context.Context, hash string) error {
	_, err := t.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &t.Name, Key: key(hash),
		UpdateExpression:          aws.String("SET revoked = :t"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}})
	if err = awsdb.Wrap(err); errors.Is(err, apperr.ErrConflict) {
		return apperr.ErrNotFound
	}
	return err
}
