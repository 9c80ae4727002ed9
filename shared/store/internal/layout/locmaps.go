package layout

const LocMapPrefix = "LOCMAP#"

// LocMapItem is a map's link in its location's partition.
type LocMapItem struct {
	PK string `dynamo:"pk"`
	SK string `dynamo:"sk"`
	ID int64  `dynamo:"id"`
}

func LocMapKey(cid, lid, mid int64) ItemKey {
	return ItemKey{ChildPK(cid, LocationPrefix, lid), LocMapPrefix + Pad(mid)}
}
