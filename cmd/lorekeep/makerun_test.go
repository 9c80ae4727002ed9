package main

import (
	"bufio"
	"fmt"
	"net"
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
		// The server starts right after printing, once built: on a loaded machine that takes a
		// while, so the first request waits for it to listen (up to the run's deadline).
		for {
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
			if time.Now().After(deadline) {
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

// TestLocalS3ListensOnTheBindHost starts scripts/s3-local.sh as make run does: on 127.0.0.1
// by default (this machine only), on every interface with LOREKEEP_BIND_HOST=0.0.0.0 (for
// sam local's containers on Linux), on exactly the address given otherwise. 127.0.0.2 stands
// for an address other than 127.0.0.1 (Linux routes all of 127/8 to loopback).
func TestLocalS3ListensOnTheBindHost(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "scripts", "s3-local.sh")
	for _, c := range []struct {
		bind      string // "" leaves LOREKEEP_BIND_HOST unset
		reachable map[string]bool
	}{
		{"", map[string]bool{"127.0.0.1": true, "127.0.0.2": false}},
		{"0.0.0.0", map[string]bool{"127.0.0.1": true, "127.0.0.2": true}},
		{"127.0.0.2", map[string]bool{"127.0.0.1": false, "127.0.0.2": true}},
	} {
		t.Run("bind="+c.bind, func(t *testing.T) {
			addr := freeAddr(t)
			port := addr[strings.LastIndex(addr, ":")+1:]
			start := exec.Command(script, "start", port, t.TempDir())
			start.Env = os.Environ()
			if c.bind != "" {
				start.Env = append(start.Env, "LOREKEEP_BIND_HOST="+c.bind)
			} else {
				start.Env = append(start.Env, "LOREKEEP_BIND_HOST=")
			}
			t.Cleanup(func() { _ = exec.Command(script, "stop", port).Run() })
			if out, err := start.CombinedOutput(); err != nil {
				t.Fatalf("s3-local.sh start: %v\n%s", err, out)
			}
			for host, want := range c.reachable {
				conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, port), 2*time.Second)
				if err == nil {
					conn.Close()
				}
				if got := err == nil; got != want {
					t.Errorf("%s:%s reachable = %v, want %v (%v)", host, port, got, want, err)
				}
			}
		})
	}
}
