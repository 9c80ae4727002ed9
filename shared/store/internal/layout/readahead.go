package layout

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

type ItemKey struct{ PK, SK string }

// KeyOfItem is an item's key: its pk and sk strings, read without reflection.
func KeyOfItem(it dynamo.Item) ItemKey {
	pk, _ := it["pk"].(*types.AttributeValueMemberS)
	sk, _ := it["sk"].(*types.AttributeValueMemberS)
	var k ItemKey
	if pk != nil {
		k.PK = pk.Value
	}
	if sk != nil {
		k.SK = sk.Value
	}
	return k
}
