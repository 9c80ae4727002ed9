package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// Two instances (two APIs, each with its own store, as two warm Lambdas have) share each user's
// bucket through the table: the limit holds across them. The bucket costs one conditional
// UpdateItem per request, two when an instance's last view of the bucket is stale.
func TestSharedRateLimitHoldsAcrossInstances(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	now := time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)
	auth, err := store.Open(t.Context(), e.Config)
	if err != nil {
		t.Fatal(err)
	}
	type instance struct {
		api   *httpapi.API
		calls *dynamotest.Counter // the bucket's DynamoDB calls
	}
	var instances [2]instance
	for i := range instances {
		c := &dynamotest.Counter{}
		rates, err := store.Open(t.Context(), e.Config, c.Attach)
		if err != nil {
			t.Fatal(err)
		}
		api := httpapi.New(httpapi.Options{Identify: httpapi.BearerAuth(auth.Tokens(), time.Now), Campaigns: e.Store, RateLimit: 3,
			SharedRate: rates, Now: func() time.Time { return now }, Timeout: apitest.TestTimeout})
		locations.Register(api, e.Store)
		instances[i] = instance{api, c}
	}
	do := func(i int, token string) *http.Response {
		req, _ := http.NewRequest("GET", apitest.Path(e.Campaign, "/locations"), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := newRecorder()
		instances[i].calls.Reset()
		instances[i].api.ServeHTTP(w, req)
		return w.Result()
	}
	for _, c := range []struct {
		name       string
		advance    time.Duration
		instance   int
		token      string
		status     int
		remaining  string
		retryAfter string
		calls      int64
	}{
		{"first request, a full bucket", 0, 0, e.Admin, 200, "2", "", 1},
		// Instance 1 has never seen the user: it guesses a refilled bucket, and the failed
		// write tells it otherwise.
		{"the other instance takes the second token", 0, 1, e.Admin, 200, "1", "", 2},
		{"the first instance takes the last one", 0, 0, e.Admin, 200, "0", "", 1},
		{"the bucket is empty on either instance", 0, 1, e.Admin, 429, "0", "20", 1},
		{"another user has a bucket of their own", 0, 1, e.Member, 200, "2", "", 1},
		{"a token comes back after 60/3 seconds", 20 * time.Second, 0, e.Admin, 200, "0", "", 1},
		{"and only one", 0, 1, e.Admin, 429, "0", "20", 1},
		// Its guess (the bucket it last saw has refilled since) is right this time.
		{"a minute later the bucket is full again", time.Minute, 1, e.Admin, 200, "2", "", 1},
	} {
		now = now.Add(c.advance)
		r := do(c.instance, c.token)
		if r.StatusCode != c.status || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != c.remaining || r.Header.Get("Retry-After") != c.retryAfter {
			t.Fatalf("%s: %d %v, want %d with %s remaining, Retry-After %q", c.name, r.StatusCode, r.Header, c.status, c.remaining, c.retryAfter)
		}
		if got := instances[c.instance].calls.N(); got != c.calls {
			t.Errorf("%s: %d DynamoDB calls for the bucket, want %d", c.name, got, c.calls)
		}
	}
	// The bucket is an item of the table, which expires once idle.
	out, err := e.Store.Client().GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(e.Config.TableName),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "RATE#user:" + strconv.FormatInt(e.AdminID, 10)}, "sk": &types.AttributeValueMemberS{Value: "RATE"}}})
	if err != nil {
		t.Fatal(err)
	}
	ttl, _ := out.Item["ttl"].(*types.AttributeValueMemberN)
	tat, _ := out.Item["tat"].(*types.AttributeValueMemberN)
	if ttl == nil || tat == nil {
		t.Fatalf("bucket item %v, want tat and ttl", out.Item)
	}
	if exp, _ := strconv.ParseInt(ttl.Value, 10, 64); exp <= now.Unix() || exp > now.Add(3*time.Minute).Unix() {
		t.Errorf("bucket ttl %s, want within a few minutes of %d", ttl.Value, now.Unix())
	}
}
