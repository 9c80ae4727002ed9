package mcp_test

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// BenchmarkListRecordsTool is a page of 45 characters through the MCP endpoint (the Go SDK's
// client over HTTP, one stateless request), beside BenchmarkListRecordsREST, the same page
// from the REST route: the endpoint's own cost is the difference.
func BenchmarkListRecordsTool(b *testing.B) {
	e := benchEnv(b)
	cs := connect(b, e, e.Admin)
	args := map[string]any{"campaign_id": e.Campaign, "module": "characters"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_records", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

func BenchmarkListRecordsREST(b *testing.B) {
	e := benchEnv(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := e.Do("GET", apitest.Path(e.Campaign, "/characters?entry_format=markdown"), e.Admin, nil); r.Status != 200 {
			b.Fatal(r.Status)
		}
	}
}

// benchEnv is the endpoint over a campaign of 45 characters with entries.
func benchEnv(b *testing.B) *apitest.Env {
	e := newEnv(b)
	for i := range 45 {
		if r := e.Do("POST", apitest.Path(e.Campaign, "/characters"), e.Admin, map[string]any{"name": "C", "entry": "<p>An entry with <b>bold</b> and [character:1].</p>"}); r.Status != 200 {
			b.Fatal(i, r.Status)
		}
	}
	return e
}
