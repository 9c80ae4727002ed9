package layout

const PendingShards = 16

const PendingTimeFmt = "2006-01-02T15:04:05.000000Z"

// PendingMarker lists a pending delete in its shard.
type PendingMarker struct {
	PK   string `dynamo:"pk"`
	SK   string `dynamo:"sk"`
	CID  int64  `dynamo:"campaign_id"`
	Kind string `dynamo:"kind"`
	ID   int64  `dynamo:"id"`
}
