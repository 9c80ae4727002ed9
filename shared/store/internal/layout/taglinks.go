package layout

import (
	"slices"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

func TagMemberKey(cid, tid int64, private bool, kind string, child int64) ItemKey {
	class := "P"
	if private {
		class = "A"
	}
	return ItemKey{ChildPK(cid, TagPrefix, tid), TagMemberPrefix + class + "#" + kind + "#" + Pad(child)}
}

type TagMember struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	EntityID int64  `dynamo:"entity_id"`
}

// PrivateTagsOf is the ids of tags that private names (nil when none): a record's PrivateTags
// kept to its current tags.
func PrivateTagsOf(tags, private []int64) []int64 {
	var out []int64
	for _, t := range tags {
		if slices.Contains(private, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// ProjectTags makes item (a public copy being written) the non-admins' projection of its tags:
// the ids of private tags left out, and private_tags, which only homes keep, dropped.
func ProjectTags(item dynamo.Item) {
	raw, ok := item["private_tags"]
	if !ok {
		return
	}
	delete(item, "private_tags")
	var tags, private []int64
	_ = dynamo.Unmarshal(item["tags"], &tags)
	_ = dynamo.Unmarshal(raw, &private)
	if av, err := dynamo.Marshal(domain.VisibleTags(tags, private, false)); err == nil {
		item["tags"] = av
	}
}
