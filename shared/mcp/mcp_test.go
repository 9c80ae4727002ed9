package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, e.Admin)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(tools.Tools[0], "", " ")
	t.Logf("%d tools; first %s", len(tools.Tools), b)
	p := ok[page](t, cs, "list_campaigns", map[string]any{})
	t.Logf("%+v", p)
	bt := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": e.Campaign, "module": "characters",
		"items": []any{map[string]any{"name": "Ald", "entry": "# Hi\n\nmet [location:1]"}, map[string]any{}}})
	t.Logf("%+v", bt)
}
