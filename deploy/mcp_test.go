package deploy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/mcp"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/token"
)

// sampleToken is the bearer token of the MCP sample events (McpFunction reads tokens itself):
// user 1's, stored by seedSampleToken.
const sampleToken = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxIiwianRpIjoic2FtcGxlLWV2ZW50cyIsImlhdCI6MCwiZXhwIjo0MTAyNDQ0ODAwfQ.AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func seedSampleToken(t *testing.T, st *store.Store) {
	t.Helper()
	tok := token.Token{UserID: 1, JTI: "sample-events", Hash: token.Hash(sampleToken), IssuedAt: time.Unix(0, 0).UTC()}
	if err := st.Tokens().Put(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
}

// mcpHandler is functions/mcp's handler: every family and the endpoint, the token read by
// the function itself.
func mcpHandler(st *store.Store) lambdaHandler {
	opts := lambdaapi.Options(func(k string) string { return lambdaEnv[k] }, st)
	opts.SharedRate = st
	opts.Identify, opts.FieldSet = httpapi.BearerAuth(st.Tokens(), time.Now), httpapi.BearerFieldSet
	api := httpapi.New(opts)
	families.Register(api, st)
	mcp.Register(api, mcp.Options{})
	return lambdaapi.Handler(api)
}

// mcpRoutesAPI holds the routes API Gateway sends McpFunction (its tools' REST routes are
// reached in process only).
func mcpRoutesAPI() *httpapi.API {
	api := httpapi.New(httpapi.Options{})
	mcp.Register(api, mcp.Options{})
	return api
}

// rpc is a JSON-RPC answer.
func rpc(t *testing.T, r response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil || m["error"] != nil {
		t.Fatalf("JSON-RPC answer %s: %v", r.Body, err)
	}
	res, _ := m["result"].(map[string]any)
	return res
}

// mcpReplay: initialize, the tool list, a create through the tool (its entry answered as
// Markdown), the metadata.
var mcpReplay = []replayStep{
	{"mcp-initialize.json", func(t *testing.T, _ *store.Store, r response) {
		res := rpc(t, r)
		if res["protocolVersion"] != "2025-06-18" || at(res, "serverInfo", "name") != "lorekeep" {
			t.Errorf("initialize: %v", res)
		}
	}},
	{"mcp-tools-list.json", func(t *testing.T, _ *store.Store, r response) {
		tools, _ := rpc(t, r)["tools"].([]any)
		if len(tools) < 12 {
			t.Errorf("%d tools", len(tools))
		}
	}},
	{"mcp-tools-call.json", func(t *testing.T, st *store.Store, r response) {
		res := rpc(t, r)
		if res["isError"] == true {
			t.Fatalf("tool error: %v", res)
		}
		results, _ := at(res, "structuredContent", "results").([]any)
		if len(results) != 1 || at(results[0], "ok") != true || !strings.Contains(str(at(results[0], "record", "entry")), "**Drowned Bell**") {
			t.Fatalf("create: %v", res)
		}
	}},
	{"mcp-protected-resource.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "metadata", r.body, map[string]any{"resource": "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/mcp"})
	}},
	{"mcp-protected-resource-mcp.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "metadata", r.body, map[string]any{"resource": "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/mcp"})
	}},
}

// On Lambda as locally: an MCP request without a valid token is a 401 naming the metadata in
// WWW-Authenticate (API Gateway does not answer it: the route has no authorizer).
func TestMcpEventWithoutTokenIsUnauthenticated(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	seed(t, st)
	seedSampleToken(t, st)
	h := mcpHandler(st)
	for _, auth := range []string{"", "Bearer " + sampleToken[:len(sampleToken)-2] + "AA", "Basic " + sampleToken} {
		ev := loadEvent(t, "mcp-tools-list.json")
		ev.Headers["authorization"] = auth
		r := invoke(t, h, ev)
		want := `Bearer resource_metadata="https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/.well-known/oauth-protected-resource"`
		if r.StatusCode != 401 || r.header("WWW-Authenticate") != want || r.body["message"] != "Unauthenticated." {
			t.Errorf("%q: %d %q %s", auth, r.StatusCode, r.header("WWW-Authenticate"), r.Body)
		}
	}
}
