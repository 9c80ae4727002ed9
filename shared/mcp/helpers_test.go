package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/mcp"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// newEnv is every family and the MCP endpoint on one API, as lorekeep serve and McpFunction
// mount them, on a real HTTP server over DynamoDB Local.
func newEnv(t testing.TB) *apitest.Env {
	t.Helper()
	return apitest.New(t, func(api *httpapi.API, st *store.Store) {
		families.Register(api, st)
		mcp.Register(api, mcp.Options{})
	})
}

// bearer sends a token with every request of the client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect is the Go SDK's client, initialized, over HTTP as token.
func connect(t testing.TB, e *apitest.Env, token string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "lorekeep-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.Server.URL + mcp.Path,
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and fails the test on a protocol error (a tool error is a result).
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured answer.
func ok[T any](t *testing.T, cs *sdk.ClientSession, name string, args any) T {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, text(res))
	}
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, b)
	}
	return out
}

// toolErr calls a tool that must fail and answers its message.
func toolErr(t *testing.T, cs *sdk.ClientSession, name string, args any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v): want a tool error, got %s", name, args, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// batch is a batch tool's answer.
type batch struct {
	Results []struct {
		Index    int              `json:"index"`
		OK       bool             `json:"ok"`
		Status   int              `json:"status"`
		Replayed bool             `json:"replayed"`
		Record   map[string]any   `json:"record"`
		Posts    []map[string]any `json:"posts"`
		Error    *struct {
			Status  int                 `json:"status"`
			Message string              `json:"message"`
			Errors  map[string][]string `json:"errors"`
		} `json:"error"`
	} `json:"results"`
	Succeeded, Failed int
	Note              string
}

type page struct {
	Records    []map[string]any `json:"records"`
	Page       int              `json:"page"`
	LastPage   int              `json:"last_page"`
	Total      int              `json:"total"`
	Sync       string           `json:"sync"`
	NextCursor string           `json:"next_cursor"`
}

func id(v any) int64 { f, _ := v.(float64); return int64(f) }
