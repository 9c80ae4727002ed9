package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/mcp"
)

// tsClientDir holds the TypeScript SDK's client script and its pinned dependency, which
// scripts/test.sh installs (npm ci) when it is missing.
const tsClientDir = "testdata/tsclient"

// The TypeScript SDK's client (@modelcontextprotocol/sdk, what most assistants embed) over
// HTTP against a running server: initialize, listTools (which parses every schema), callTool
// on the tools (which validates each answer against its output schema), a viewer refused, a
// bad argument, tools/list without initialize, and no token.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("no node: run the tests with scripts/test.sh (make test), which installs Node.js and the client's packages")
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed in %s: run the tests with scripts/test.sh (make test), which runs npm ci there", tsClientDir)
	}
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", e.Server.URL+mcp.Path)
	cmd.Dir = tsClientDir
	cmd.Env = append(os.Environ(), "LOREKEEP_ADMIN="+e.Admin, "LOREKEEP_VIEWER="+e.Viewer, "LOREKEEP_CAMPAIGN="+strconv.FormatInt(e.Campaign, 10))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "all passed") {
		t.Fatalf("the TypeScript client: %v", err)
	}
	if n := strings.Count(string(out), "\nok "); n < 15 {
		t.Errorf("%d checks passed, want every one of the script's", n+1)
	}
}
