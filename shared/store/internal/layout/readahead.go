package layout

import "github.com/guregu/dynamo/v2"

type ItemKey struct{ Pk, Sk string }

func KeyOfItem(it dynamo.Item) ItemKey {
	var k ItemKey
	_ = dynamo.Unmarshal(it["pk"], &k.Pk)
	_ = dynamo.Unmarshal(it["sk"], &k.Sk)
	return k
}
