package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/mcp"
)

// Without a valid token /mcp answers 401 with WWW-Authenticate naming the RFC 9728 metadata,
// which is served without a token and names the endpoint.
func TestUnauthenticatedIsA401WithResourceMetadata(t *testing.T) {
	e := newEnv(t)
	for _, tok := range []string{"", "Bearer nope", "Basic abc"} {
		req, _ := http.NewRequest("POST", e.Server.URL+mcp.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := `Bearer resource_metadata="` + e.Server.URL + mcp.MetadataPath + `"`
		if res.StatusCode != 401 || res.Header.Get("WWW-Authenticate") != want || string(body) != `{"message":"Unauthenticated."}` {
			t.Errorf("%q: %d %q %s", tok, res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
		}
	}
	for _, p := range []string{mcp.MetadataPath, mcp.MetadataPath + mcp.Path} {
		res, err := http.Get(e.Server.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		_ = json.NewDecoder(res.Body).Decode(&meta)
		res.Body.Close()
		if res.StatusCode != 200 || meta["resource"] != e.Server.URL+mcp.Path || meta["bearer_methods_supported"].([]any)[0] != "header" {
			t.Errorf("%s: %d %v", p, res.StatusCode, meta)
		}
	}
}

// Every tool has an input and an output schema that every SDK accepts: objects all the way
// down (no boolean schema, which the TypeScript SDK's listTools rejects), each with a
// description the assistant can follow.
func TestToolsHaveSchemasEverySDKAccepts(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, e.Viewer)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"list_campaigns", "get_campaign", "search", "list_records", "get_records", "changes_since",
		"create_records", "update_records", "delete_records", "posts", "entity_resources", "calendar"}
	got := map[string]bool{}
	for _, tl := range list.Tools {
		got[tl.Name] = true
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description %q, schemas %v %v", tl.Name, tl.Description, tl.InputSchema != nil, tl.OutputSchema != nil)
			continue
		}
		for what, sch := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			raw, _ := json.Marshal(sch)
			var v any
			_ = json.Unmarshal(raw, &v)
			if m, _ := v.(map[string]any); m["type"] != "object" {
				t.Errorf("%s %s schema: type %v, want object", tl.Name, what, m["type"])
			}
			walkSchema(t, tl.Name+" "+what, v)
		}
	}
	for _, n := range want {
		if !got[n] {
			t.Errorf("no tool %s", n)
		}
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.GuideURI})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "[character:12]") || !strings.Contains(res.Contents[0].Text, "| organisations | organisation |") {
		t.Errorf("guide: %v %+v", err, res)
	}
}

// walkSchema fails on a boolean schema anywhere a schema is expected.
func walkSchema(t *testing.T, where string, v any) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: schema %v is not an object", where, v)
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, p := range props {
			if pm, ok := p.(map[string]any); ok && pm["description"] == nil && pm["type"] != "object" && where != "" && !strings.Contains(where, ".") {
				t.Errorf("%s.%s: no description", where, k)
			}
			walkSchema(t, where+"."+k, p)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := m[k]; ok {
			if b, isBool := sub.(bool); isBool && (b || k == "items") {
				t.Errorf("%s.%s: boolean schema %v", where, k, b)
				continue
			}
			if _, isBool := sub.(bool); !isBool {
				walkSchema(t, where+"."+k, sub)
			}
		}
	}
}
