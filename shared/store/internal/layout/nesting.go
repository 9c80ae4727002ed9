package layout

// ChildLink is the item that lists a child record in its parent's partition (beside a
// location's map points), written with the child: the parent's delete and privacy change find
// its children there, strongly consistent, where an index could lag behind a child written
// just before. It carries the child's privacy (related=1 lists a non-admin's children by it).
type ChildLink struct {
	PK        string `dynamo:"pk"`
	SK        string `dynamo:"sk"`
	ID        int64  `dynamo:"id"`
	IsPrivate bool   `dynamo:"is_private"`
	// OrphanedBy (the trash time) and ChildVersion mark the link of a child its parent's trash
	// made a root: the parent's restore re-parents it if it is still that version.
	OrphanedBy   string `dynamo:"orphaned_by,omitempty"`
	ChildVersion int64  `dynamo:"child_version,omitempty"`
}

// LinkKeys are the items that list child id under parent: its link, and for a location the
// link's copy in the parent's related bucket.
func LinkKeys(k KindSpec, cid, parent, id int64) []ItemKey {
	keys := []ItemKey{ChildLinkKeyOf(k, cid, parent, id)}
	if k.Prefix == LocationPrefix {
		keys = append(keys, RelatedChildKey(cid, parent, id))
	}
	return keys
}
