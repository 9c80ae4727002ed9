package apitest

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
)

// SeedLocations adds n root locations (ids 1..n, every privateEvery-th private; 0: none) to
// campaign cid, fast: written as plain items in the previous key layout with BatchWriteItem,
// then brought to the current one by ops.Migrate, as a deployed table would be. The campaign
// must have no locations yet. Call it before counting calls: it is not counted.
func (e *Env) SeedLocations(cid int64, n, privateEvery int) {
	e.T.Helper()
	ctx := context.Background()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	num := func(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
	cpk := fmt.Sprintf("CAMPAIGN#%012d", cid)
	var reqs []types.WriteRequest
	for id := 1; id <= n; id++ {
		private := privateEvery > 0 && id%privateEvery == 0
		name := fmt.Sprintf("Place %d", id)
		reqs = append(reqs,
			types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": s(cpk), "sk": s(fmt.Sprintf("LOCATION#%012d", id)), "id": num(id), "campaign_id": num(int(cid)),
				"entity_id": num(id), "name": s(name), "name_lc": s(fmt.Sprintf("place %d", id)),
				"entry": s("<p>A place of the campaign, with a line of text.</p>"), "type": s("Town"),
				"is_private": &types.AttributeValueMemberBOOL{Value: private}, "tags": &types.AttributeValueMemberL{},
				"is_map_private": &types.AttributeValueMemberBOOL{}, "created_at": s("2024-01-01T00:00:00.000000Z"),
				"updated_at": s("2024-01-01T00:00:00.000000Z"), "created_by": num(int(e.AdminID)), "updated_by": num(int(e.AdminID)),
				"version": num(1)}}},
			types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": s(cpk), "sk": s(fmt.Sprintf("ENTITY#%012d", id)), "id": num(id), "campaign_id": num(int(cid)),
				"type": s("location"), "child_id": num(id), "name": s(name), "is_private": &types.AttributeValueMemberBOOL{Value: private}}}})
	}
	// The sequences continue after the seeded ids.
	reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
		"pk": s(cpk), "sk": s("SEQ"), "location": num(n), "entity": num(n)}}})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for start := 0; start < len(reqs); start += 25 {
		chunk := reqs[start:min(start+25, len(reqs))]
		g.Go(func() error {
			for len(chunk) > 0 {
				out, err := e.Store.Client().BatchWriteItem(gctx, &dynamodb.BatchWriteItemInput{
					RequestItems: map[string][]types.WriteRequest{e.Config.TableName: chunk}})
				if err != nil {
					return err
				}
				chunk = out.UnprocessedItems[e.Config.TableName]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		e.T.Fatal(err)
	}
	if _, err := ops.Migrate(ctx, e.Store, nil); err != nil {
		e.T.Fatal(err)
	}
}

// SeedTags adds n public tags (ids 1..n when the campaign has none yet) to campaign cid
// through the store, so that records may name tags 1..n (tags are links: an id naming no tag
// is refused). Call it after SeedLocations, which resets the campaign's sequences.
func (e *Env) SeedTags(cid int64, n int) {
	e.T.Helper()
	for i := 1; i <= n; i++ {
		t := &domain.Tag{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID, UpdatedBy: e.AdminID}, Owner: domain.Owner{Name: "Seeded tag"}}
		if err := tagstore.New(e.Store).CreateTag(context.Background(), t); err != nil {
			e.T.Fatal(err)
		}
	}
}

// EnsureTags creates public tags in campaign cid until every id of ids names one (tags get
// ids in order), for tests whose records name tags by number: a record's tags must exist.
func (e *Env) EnsureTags(cid int64, ids ...int64) {
	e.T.Helper()
	for _, id := range ids {
		for n := 0; n <= int(id); n++ {
			if _, err := tagstore.New(e.Store).GetTag(context.Background(), cid, id); err == nil {
				break
			}
			e.SeedTags(cid, 1)
		}
	}
}

// EnsureBodyTags is EnsureTags for the ids a request body's `tags` names (ints of any type).
func (e *Env) EnsureBodyTags(cid int64, body map[string]any) {
	e.T.Helper()
	var ids []int64
	switch v := body["tags"].(type) {
	case []int:
		for _, x := range v {
			ids = append(ids, int64(x))
		}
	case []int64:
		ids = v
	case []any:
		for _, x := range v {
			switch n := x.(type) {
			case int:
				ids = append(ids, int64(n))
			case int64:
				ids = append(ids, n)
			case float64:
				ids = append(ids, int64(n))
			}
		}
	}
	e.EnsureTags(cid, ids...)
}
