package lambdaapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

// On Lambda as locally: one JSON log line per request, carrying API Gateway's request id and
// the invocation's X-Ray trace id, and a panic answered as a JSON 500 (never an invocation error).
func TestLambdaLogsWithAPIGatewaysRequestIDAndRecoversPanics(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	api := httpapi.New(httpapi.Options{Identify: lambdaapi.AuthorizerIdentity, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	api.HandlePublic("GET /boom", func(http.ResponseWriter, *http.Request) { panic("deliberate") })
	api.HandlePublic("GET /fine", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, r, http.StatusOK, map[string]bool{"ok": true})
	})
	h := lambdaapi.Handler(api)
	for _, tc := range []struct {
		path   string
		status int
		level  string
	}{
		{"/fine", 200, "INFO"},
		{"/boom", 500, "ERROR"},
	} {
		logs.Reset()
		ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "ANY " + tc.path, RawPath: tc.path,
			Headers: map[string]string{"x-request-id": "forged"},
			RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "gw-" + tc.path[1:], Stage: "$default",
				DomainName: "example.com", HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: tc.path, SourceIP: "203.0.113.1"}}}
		// aws-lambda-go hands the handler the invocation's X-Ray trace header this way.
		ctx := context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
		res, err := h(ctx, ev)
		if err != nil {
			t.Fatalf("%s: an error to Lambda: %v", tc.path, err)
		}
		if res.StatusCode != tc.status || res.Headers["Content-Type"] != "application/json" {
			t.Errorf("%s: %d %v %s", tc.path, res.StatusCode, res.Headers, res.Body)
		}
		var line map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(logs.Bytes()), &line); err != nil {
			t.Fatalf("%s: want one JSON log line, got %q", tc.path, logs.String())
		}
		if line["trace_id"] != "1-5759e988-bd862e3fe1be46a994272793" {
			t.Errorf("%s: trace_id %v, want the invocation's X-Ray trace id", tc.path, line["trace_id"])
		}
		if line["request_id"] != "gw-"+tc.path[1:] || line["status"] != float64(tc.status) || line["level"] != tc.level || line["route"] != "GET "+tc.path {
			t.Errorf("%s: log line %v", tc.path, line)
		}
	}
}
