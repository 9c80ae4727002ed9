// Package storetest holds the helpers the store's tests and its operations code's tests
// share: raw attribute values and keys for items written as an older layout did, a table's
// snapshot and its diff, a campaign with its owner, the migration run twice to a clean audit.
package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
)

// SV, NV and BV are a raw string, number and boolean attribute.
func SV(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func NV(v int64) types.AttributeValue  { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
func BV(v bool) types.AttributeValue   { return &types.AttributeValueMemberBOOL{Value: v} }

// Key is prefix#id with the id padded as the layout pads it.
func Key(prefix string, id int64) string { return fmt.Sprintf("%s#%012d", prefix, id) }

// Snapshot is every item of the table but the migration's checkpoints, one sorted line each.
func Snapshot(t *testing.T, st *store.Store, table string) string {
	t.Helper()
	out, err := st.Client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, it := range out.Items {
		if it["pk"].(*types.AttributeValueMemberS).Value == "MIGRATION" {
			continue
		}
		keys := make([]string, 0, len(it))
		for k := range it {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%v ", k, it[k])
		}
		lines = append(lines, b.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// LineDiff lists the lines of before missing from after (-) and those new in after (+).
func LineDiff(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out []string
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// IDs is the id of each item, in order ([] for none).
func IDs[T any](items []T, id func(T) int64) []int64 {
	out := []int64{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// OwnedCampaign creates the user "admin" and campaign c owned by it.
func OwnedCampaign(t *testing.T, st *store.Store, c domain.Campaign) (domain.User, domain.Campaign) {
	t.Helper()
	ctx := context.Background()
	admin, err := campstore.New(st).EnsureUser(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	c.OwnerID = admin.ID
	made, err := campstore.New(st).CreateCampaign(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return admin, made
}

// MigrateTwice runs the migration twice (it is idempotent) and fails unless the audit of
// campaign cid finds nothing after each run; then, when given, check(run).
func MigrateTwice(t *testing.T, st *store.Store, cid int64, check func(run int)) {
	t.Helper()
	ctx := context.Background()
	for run := 0; run < 2; run++ {
		if _, err := ops.Migrate(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		if problems, err := ops.Audit(ctx, st, cid); err != nil || len(problems) > 0 {
			t.Fatalf("run %d: audit %v %q", run, err, problems)
		}
		if check != nil {
			check(run)
		}
	}
}
