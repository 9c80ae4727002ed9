package layout

import "github.com/guregu/dynamo/v2"

type ItemKey struct{ PK, SK string }

func KeyOfItem(it dynamo.Item) ItemKey {
	var k ItemKey
	_ = dynamo.Unmarshal(it["pk"], &k.PK)
	_ = dynamo.Unmarshal(it["sk"], &k.SK)
	return k
}
