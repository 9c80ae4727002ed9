package ops

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Layout 3's campaign, user and membership fields, filled by the migration's rewrite for items
// written before them (only what is missing, so a second run changes nothing):
//   - a campaign's META gets locale "en", version 1, and created_at: its first entity's (ids grow
//     with time, so the lowest entity id is the oldest record the campaign has), or the
//     migration's time for a campaign without records; updated_at starts equal to it;
//   - a user's META gets last_campaign_id, the highest campaign id it belongs to;
//   - a campaign's MEMBER# item gets the user's name, and the migration's time as created_at and
//     updated_at (layout 2 kept no time for a membership).
//
// The membership counters (COUNT#MEMBER, COUNT#CAMPAIGN) are recounted with every other counter.

// identityItem is item (pk, sk) with the layout 3 fields it lacks, or nil when it is not a
// campaign, user or membership item, or lacks nothing.
func (s storeView) identityItem(ctx context.Context, pk, sk string, it dynamo.Item, now string) (dynamo.Item, error) {
	has := func(name string) bool { _, ok := it[name]; return ok }
	set := func(name string, v any) {
		av, err := dynamo.Marshal(v)
		if err == nil {
			it[name] = av
		}
	}
	parts := strings.Split(pk, "#")
	switch {
	case sk == layout.MetaSK && len(parts) == 2 && parts[0]+"#" == layout.CampaignPrefix:
		if has("created_at") && has("updated_at") && has("locale") && has("version") {
			return nil, nil
		}
		if !has("locale") {
			set("locale", "en")
		}
		if !has("version") {
			set("version", 1)
		}
		if !has("created_at") {
			created := now
			var first []struct {
				CreatedAt string `dynamo:"created_at"`
			}
			err := s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.EntityPrefix+"#").Project("created_at").Consistent(true).Limit(1).All(ctx, &first)
			if err != nil {
				return nil, layout.Wrap(err)
			}
			if len(first) == 1 && first[0].CreatedAt != "" {
				created = first[0].CreatedAt
			}
			set("created_at", created)
		}
		if !has("updated_at") {
			it["updated_at"] = it["created_at"]
		}
		return it, nil
	case sk == layout.MetaSK && len(parts) == 2 && parts[0] == "USER":
		if has("last_campaign_id") {
			return nil, nil
		}
		var last []layout.MemberItem
		err := s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.CampaignPrefix).Order(dynamo.Descending).Consistent(true).Limit(1).All(ctx, &last)
		if err != nil {
			return nil, layout.Wrap(err)
		}
		if len(last) == 0 {
			return nil, nil
		}
		set("last_campaign_id", last[0].CampaignID)
		return it, nil
	case strings.HasPrefix(sk, layout.MemberKind+"#") && len(parts) == 2 && parts[0]+"#" == layout.CampaignPrefix:
		if has("name") && has("created_at") && has("updated_at") {
			return nil, nil
		}
		if !has("name") {
			var m layout.MemberItem
			_ = dynamo.UnmarshalItem(it, &m)
			var u layout.UserItem
			err := s.GetItem(ctx, layout.UserPK(m.UserID), layout.MetaSK, &u)
			if err != nil && !errors.Is(err, apperr.ErrNotFound) {
				return nil, err
			}
			it["name"] = &types.AttributeValueMemberS{Value: u.Name}
		}
		if !has("created_at") {
			set("created_at", now)
		}
		if !has("updated_at") {
			it["updated_at"] = it["created_at"]
		}
		return it, nil
	}
	return nil, nil
}
