package layout

import (
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

type MentionItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	CampaignID int64  `dynamo:"campaign_id"`
	SourceID   int64  `dynamo:"source_id"`
	PostID     int64  `dynamo:"post_id"`
	TargetID   int64  `dynamo:"target_id"`
	Visibility string `dynamo:"visibility,omitempty"` // a post's; "" for an entry
	CreatedBy  int64  `dynamo:"created_by"`
}

// TargetsOf is the distinct entities entry mentions that get reverse items: the first
// MaxMentions, the source itself left out.
func TargetsOf(entry string, src int64) []int64 {
	var out []int64
	for _, id := range domain.MentionedIDs(entry) {
		if len(out) == domain.MaxMentions {
			break
		}
		if id != src {
			out = append(out, id)
		}
	}
	return out
}

// MentionItemsOf are the reverse items an entry home (an owner's or a note's, pk and sk as
// scanned) calls for, before their targets are known to exist (the migration's rewrite).
func MentionItemsOf(pk, sk string, it dynamo.Item) []MentionItem {
	var rec struct {
		ID         int64  `dynamo:"id"`
		CampaignID int64  `dynamo:"campaign_id"`
		EntityID   int64  `dynamo:"entity_id"`
		Entry      string `dynamo:"entry"`
		Visibility string `dynamo:"visibility"`
		CreatedBy  int64  `dynamo:"created_by"`
	}
	if dynamo.UnmarshalItem(it, &rec) != nil || rec.Entry == "" || rec.EntityID == 0 {
		return nil
	}
	var post int64
	vis, by := "", int64(0)
	kind, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(sk, TrashedPrefix), SelfHome), "#")
	switch {
	case pk == CampaignPK(rec.CampaignID) && (sk == RecordSK(kind, rec.ID) || sk == TrashedSK(kind, rec.ID)) && IsOwnerPrefix(kind):
		// a trashed record's entry keeps its items until its purge
	case pk == EntityPK(rec.CampaignID, rec.EntityID) && kind == NotePrefix:
		post, vis, by = rec.ID, rec.Visibility, rec.CreatedBy
		if vis == "" {
			vis = string(domain.VisibilityAll)
		}
	default:
		return nil
	}
	var out []MentionItem
	for _, t := range TargetsOf(rec.Entry, rec.EntityID) {
		k := MentionKey(rec.CampaignID, t, rec.EntityID, post)
		out = append(out, MentionItem{PK: k.PK, SK: k.SK, CampaignID: rec.CampaignID, SourceID: rec.EntityID, PostID: post,
			TargetID: t, Visibility: vis, CreatedBy: by})
	}
	return out
}
