package deploy_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkColdStart measures each function's cold start as Lambda sees it: from exec of a
// fresh process to its first answer posted to the Lambda runtime API (emulated here over
// loopback). The binary is built by the function's Makefile target, for this machine's
// architecture instead of arm64, so the flags are the deployed ones. The request needs no
// storage (an HTTP function answers 401 without the authorizer's context; the authorizer
// answers a request without a token), so the figure is the process start, the SDK's and the
// handler's initialisation and one request.
func BenchmarkColdStart(b *testing.B) {
	for _, fn := range slices.Sorted(maps.Keys(functionPackages)) {
		b.Run(fn, func(b *testing.B) {
			if fn == "SweeperFunction" {
				b.Skip("a sweep's first answer needs the table: its cold start is the store's, as the families'")
			}
			bin, err := buildForHost(fn, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			event := coldStartEvent(fn)
			var walls []time.Duration
			var cpu time.Duration
			for b.Loop() {
				w, c := coldStart(b, bin, event)
				walls, cpu = append(walls, w), cpu+c
			}
			slices.Sort(walls)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(walls[len(walls)/2]), "p50-ms")
			b.ReportMetric(ms(walls[(len(walls)*99)/100]), "p99-ms")
			b.ReportMetric(ms(cpu)/float64(len(walls)), "cpu-ms/coldstart")
			if st, err := os.Stat(bin); err == nil {
				b.ReportMetric(float64(st.Size()), "bytes")
			}
		})
	}
}

// buildForHost runs the build-<fn> target's commands with the host's GOARCH, into
// dir/bootstrap, and returns that path.
func buildForHost(fn, dir string) (string, error) {
	plan, err := exec.Command("make", "-s", "-n", "-C", root, "build-"+fn, "ARTIFACTS_DIR="+dir).Output()
	if err != nil {
		return "", fmt.Errorf("make -n build-%s: %w", fn, err)
	}
	script := strings.ReplaceAll(string(plan), "GOARCH=arm64", "GOARCH="+runtime.GOARCH)
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", fn, err, out)
	}
	return filepath.Join(dir, "bootstrap"), nil
}

func coldStartEvent(fn string) []byte {
	var ev any
	switch fn {
	case "WebhooksFunction", "WebhookDeliveryFunction": // a stream or queue batch of no records: nothing to do
		ev = map[string]any{"Records": []any{}}
	case "AuthorizerFunction":
		ev = map[string]any{"version": "2.0", "type": "REQUEST", "routeArn": "arn:aws:execute-api:us-east-1:123456789012:api/$default/GET/x",
			"headers": map[string]string{}, "requestContext": map[string]any{"http": map[string]string{"method": "GET", "path": "/x"}}}
	default:
		path := "/api/1.0/campaigns/1/locations"
		if fn == "MetaFunction" {
			path = "/health"
		}
		ev = map[string]any{"version": "2.0", "routeKey": "$default", "rawPath": path, "headers": map[string]string{"host": "example.com"},
			"requestContext": map[string]any{"requestId": "cold", "stage": "$default", "domainName": "example.com",
				"http": map[string]string{"method": "GET", "path": path, "sourceIp": "203.0.113.1"}}}
	}
	raw, _ := json.Marshal(ev)
	return raw
}

// coldStart runs bin once against an emulated runtime API handing out event, and returns the
// time from exec to the posted answer, and the CPU time the process used (user and system,
// which a busy machine disturbs less than the wall time; the process is idle after answering).
func coldStart(b *testing.B, bin string, event []byte) (wall, cpu time.Duration) {
	b.Helper()
	answered := make(chan string, 1)
	var gave atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/invocation/next"):
			if !gave.CompareAndSwap(false, true) { // one invocation per process: the next poll waits until the process is ended
				<-r.Context().Done()
				return
			}
			w.Header().Set("Lambda-Runtime-Aws-Request-Id", "cold-1")
			w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10))
			w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:cold")
			_, _ = w.Write(event)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusAccepted)
			answered <- r.URL.Path
		}
	}))
	defer srv.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+strings.TrimPrefix(srv.URL, "http://"),
		"TABLE_NAME=coldstart", "DYNAMODB_ENDPOINT=http://127.0.0.1:9", "AWS_REGION=us-east-1",
		"IMAGE_BUCKET=coldstart", "IMAGES_FUNCTION=coldstart-images", // the functions that serve pictures
		"WEBHOOK_QUEUE_URL=http://127.0.0.1:9/q.fifo", "WEBHOOK_DEAD_LETTER_QUEUE_URL=http://127.0.0.1:9/d.fifo", // the webhooks' queue
		"AWS_LAMBDA_FUNCTION_NAME=cold", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512", "AWS_LAMBDA_FUNCTION_VERSION=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // a failed init ends the process
	stop := func() time.Duration {
		_ = cmd.Process.Kill()
		<-exited
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	select {
	case path := <-answered:
		wall = time.Since(start)
		cpu = stop()
		if !strings.HasSuffix(path, "/cold-1/response") {
			b.Fatalf("the function answered %s, not a response", path)
		}
		return wall, cpu
	case <-exited:
		b.Fatalf("%s ended before answering: %s", bin, stderr.String())
	case <-time.After(30 * time.Second):
		stop()
		b.Fatalf("%s gave no answer in 30 s", bin)
	}
	return 0, 0
}
