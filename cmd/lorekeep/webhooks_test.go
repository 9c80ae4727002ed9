package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// `lorekeep serve` delivers webhooks as the functions do on AWS: the table's stream into the
// delivery queue on the local SQS (SQS_ENDPOINT, `lorekeep sqs`), and its consumers to the
// subscriber.
func TestServeDeliversWebhooks(t *testing.T) {
	t.Parallel()
	l := newLorekeep(t)
	l.env = append(l.env, "WEBHOOKS_ALLOW_HTTP=1", "WEBHOOKS_ALLOW_LOOPBACK=1")
	demo := l.json("demo")
	cid, token := demo["campaign_id"], demo["token"].(string)
	var mu sync.Mutex
	var got []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev struct {
			Event string `json:"event"`
		}
		_ = json.Unmarshal(b, &ev)
		mu.Lock()
		got = append(got, ev.Event)
		mu.Unlock()
		w.WriteHeader(204)
	}))
	defer rc.Close()
	addr := freeAddr(t)
	srv := exec.Command(l.bin, "serve", "--addr", addr)
	srv.Env = l.env
	srv.Stderr = io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatal("lorekeep serve did not listen")
		}
		time.Sleep(100 * time.Millisecond)
	}
	do := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, fmt.Sprintf("http://%s/api/1.0/campaigns/%v%s", addr, cid, path), strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	if status, w := do("POST", "/webhooks", `{"url":"`+rc.URL+`","events":["location.created"]}`); status != 200 {
		t.Fatalf("create webhook: %d %v", status, w)
	}
	// serve reads the stream from its end once it is up: locations are made until one is heard
	// of (a deadline for an asynchronous result, not a timing assertion).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no webhook delivery from lorekeep serve in 60 s")
		}
		if status, m := do("POST", "/locations", `{"name":"Heard of"}`); status != 200 {
			t.Fatalf("create location: %d %v", status, m)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got[0] != "location.created" {
		t.Errorf("deliveries = %v, want location.created", got)
	}
}
