package main

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// chromium is Debian's browser, which scripts/test.sh installs when it is missing.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium: run the tests with scripts/test.sh (make test), which installs Debian's chromium")
	return ""
}

// TestDocsPageShowsEveryOperation loads /docs of the local server in headless Chromium and
// checks that the rendered page (Redoc, shipped in the binary) shows every operation of the
// document.
func TestDocsPageShowsEveryOperation(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	srv := httptest.NewServer(newHandler(st, func(string) string { return "" }))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=30000", "--dump-dom", srv.URL+"/docs")
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	page := html.UnescapeString(string(dom))

	raw, err := apidoc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	shown, tags := 0, map[string]bool{}
	for path, ops := range doc.Paths {
		for method, rawOp := range ops {
			var op struct {
				Summary string   `json:"summary"`
				Tags    []string `json:"tags"`
			}
			if method == "parameters" || json.Unmarshal(rawOp, &op) != nil {
				continue
			}
			if !strings.Contains(page, op.Summary) {
				t.Errorf("%s %s: %q is not on the docs page", strings.ToUpper(method), path, op.Summary)
				continue
			}
			shown++
			for _, tag := range op.Tags {
				tags[tag] = true
			}
		}
	}
	for _, family := range []string{"Locations", "Map points", "Calendars", "Entity events", "Entity notes"} {
		if !tags[family] || !strings.Contains(page, family) {
			t.Errorf("family %q is not on the docs page", family)
		}
	}
	if shown == 0 {
		t.Fatalf("no operation rendered; page starts %.500s", dom)
	}
}

// The local server answers unclean paths as the API does (a JSON 404), never with ServeMux's
// HTML redirect that clients follow with their write bodies; the docs page is still served.
func TestLocalServerAnswersUncleanPathsWithJSON(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	srv := httptest.NewServer(newHandler(st, func(string) string { return "" }))
	defer srv.Close()
	cases := []struct {
		method, path string
		want         int
		wantType     string
	}{
		{"GET", "/api/1.0/campaigns/1//locations", 404, "application/json"},
		{"POST", "/api/1.0/campaigns/1/../1/locations", 404, "application/json"},
		{"DELETE", "/api/1.0/campaigns/1/./locations/1", 404, "application/json"},
		{"GET", "/docs/../health", 404, "application/json"},
		{"GET", "/docs//redoc.standalone.js", 404, "application/json"},
		{"GET", "/health", 200, "application/json"},
		{"GET", "/docs", 200, "text/html; charset=utf-8"}, // the page (Redoc is in the binary)
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{"name":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultTransport.RoundTrip(req) // no redirect following
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.want || res.Header.Get("Content-Type") != c.wantType {
				t.Errorf("%d %q, want %d %q", res.StatusCode, res.Header.Get("Content-Type"), c.want, c.wantType)
			}
		})
	}
}
