package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRunServesTheDemoCampaign runs `make run` as the README says (on its own ports and
// data directory), reads the campaign id and token it prints, and uses them as curl would.
func TestMakeRunServesTheDemoCampaign(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	addr, ddb := freeAddr(t), freeAddr(t)
	cmd := exec.Command("make", "-s", "run")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ADDR="+addr, "DYNAMODB_LOCAL_PORT="+ddb[strings.LastIndex(ddb, ":")+1:],
		"LOREKEEP_DATA_DIR="+t.TempDir(), "TABLE_NAME=makerun", "REQUEST_TIMEOUT=30s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // stop make, the server and DynamoDB Local together
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	campaign, token := "", ""
	lines := bufio.NewScanner(out)
	deadline := time.Now().Add(3 * time.Minute)
	for (campaign == "" || token == "") && lines.Scan() && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`campaign id:\s+(\d+)`).FindStringSubmatch(lines.Text()); m != nil {
			campaign = m[1]
		}
		if m := regexp.MustCompile(`token:\s+(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			token = m[1]
		}
	}
	if campaign == "" || token == "" {
		t.Fatalf("make run printed no campaign id and token")
	}
	go func() { // keep draining the server's log
		for lines.Scan() {
		}
	}()
	base := fmt.Sprintf("http://%s/api/1.0/campaigns/%s/locations", addr, campaign)
	curl := func(method, url, body string) int {
		for i := 0; ; i++ {
			req, _ := http.NewRequest(method, url, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
				return res.StatusCode
			}
			if i > 100 { // the server starts right after printing
				t.Fatalf("%s %s: %v", method, url, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, step := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "", `{"name":"Neverwinter"}`, 200},
		{"GET", "/1", "", 200},
		{"PUT", "/1", `{"type":"City"}`, 200},
		{"GET", "?name=never", "", 200},
		{"DELETE", "/1", "", 200},
		{"GET", "/1", "", 404},
	} {
		if got := curl(step.method, base+step.path, step.body); got != step.want {
			t.Fatalf("%s %s: %d, want %d", step.method, step.path, got, step.want)
		}
	}
	// The README's curl session covers every family with the ids it gets back; it runs twice.
	for run := 1; run <= 2; run++ {
		session := exec.Command(filepath.Join(root, "scripts", "curl-session.sh"))
		session.Env = append(os.Environ(), "API="+fmt.Sprintf("http://%s/api/1.0/campaigns/%s", addr, campaign), "TOKEN="+token)
		if out, err := session.CombinedOutput(); err != nil {
			t.Fatalf("scripts/curl-session.sh, run %d: %v\n%s", run, err, out)
		}
	}
	// The docs page, the document and health answer without a token.
	for _, path := range []string{"/docs", "/api/1.0/openapi.json", "/health", "/"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
}
