package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/sqstest"
	"github.com/lorekeep/lorekeep/shared/webhooks"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// TestLocalInvoke is `make local-invoke`, and part of `make test`: `sam local invoke` of every
// sample event without Docker. Each function is built by its Makefile target for this
// machine and runs under the RIE with env.json's variables, their endpoints pointed at the
// DynamoDB Local and the local S3 of the run. The HTTP events are replayed in the order and
// with the seeding of replayGroups, each answer checked against the status its route
// documents and the replay's own checks; the authorizer, stream and schedule events follow.
// It prints one line per event, then "N passed, M failed".
func TestLocalInvoke(t *testing.T) {
	s3 := os.Getenv("LOREKEEP_TEST_S3")
	if s3 == "" {
		t.Fatal("LOREKEEP_TEST_S3 is not set: make local-invoke and make test start the local S3 it names")
	}
	sqsEndpoint := sqstest.Endpoint(t)
	tpl := loadTemplate(t)
	routes := tpl.httpAPIRoutes(t)
	built := time.Now()
	rt := &localRuntime{tpl: tpl, rie: buildRIE(t), bins: buildFunctionsForHost(t), env: readEnvJSON(t),
		dynamodb: dynamotest.Endpoint(t), s3: s3, sqs: sqsEndpoint}
	fmt.Printf("built %d functions (%s/%s) and the emulator in %.1fs\n", len(rt.bins), runtime.GOOS, runtime.GOARCH, time.Since(built).Seconds())
	rep := &invokeReport{}
	defer rep.summary(t)

	for _, g := range replayGroups {
		t.Run(g.name, func(t *testing.T) {
			st, cfg := dynamotest.NewStore(t)
			g.seed(t, st)
			f := rt.fleet(t, cfg.TableName)
			failed := ""
			for _, s := range g.steps {
				ev := loadEvent(t, s.file)
				fn := eventFunction(t, routes, s.file, ev)
				if failed != "" {
					rep.fail(s.file, fn, "not run: events/%s failed before it", failed)
					continue
				}
				raw := readEvent(t, s.file)
				var got events.APIGatewayV2HTTPResponse
				var invokeErr error
				h := func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
					got, invokeErr = f.invokeHTTP(fn, raw) // the file as sam local invoke sends it
					return got, invokeErr
				}
				if t.Run(s.file, func(t *testing.T) { replayStepOn(t, st, h, ev, s) }) {
					rep.pass(s.file, fn, fmt.Sprint(got.StatusCode))
					continue
				}
				failed = s.file
				switch want := documentedStatus(t, ev); {
				case invokeErr != nil:
					rep.fail(s.file, fn, "%v", invokeErr)
				case got.StatusCode != want:
					rep.fail(s.file, fn, "want %d got %d: %.200s", want, got.StatusCode, got.Body)
				default:
					rep.fail(s.file, fn, "got %d, but its checks failed (above)", got.StatusCode)
				}
				t.Logf("%s's log, last lines:\n%s", fn, f.logTail(fn))
			}
		})
	}

	// The events of no HTTP route: the authorizer's (a token minted for user 1), the webhooks'
	// stream batch (a location created, for the campaign's webhook) and schedules.
	t.Run("authorizer, stream and schedules", func(t *testing.T) {
		st, cfg := dynamotest.NewStore(t)
		seed(t, st)
		wh := webhooks.NewStorage(st)
		w := &hook.Webhook{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, URL: "https://hooks.lorekeep.invalid/x", Format: hook.FormatLorekeep,
			IsActive: true, Secret: "whsec_test"}
		if err := wh.CreateWebhook(context.Background(), w, webhooks.MaxWebhooks); err != nil {
			t.Fatal(err)
		}
		// env.json's queue (make run's: the table's name and -webhooks), on this run's SQS.
		q, err := webhooks.CreateQueues(context.Background(), webhooks.SQSClient(st, sqsEndpoint), "lorekeep-webhooks", webhooks.MaxReceives)
		if err != nil {
			t.Fatal(err)
		}
		queuedEvents(t, q) // what an earlier run left
		f := rt.fleet(t, cfg.TableName)
		for _, c := range []struct {
			file, fn string
			payload  func(t *testing.T) []byte
			check    func(t *testing.T, out []byte) string // what the answer was, for the report
		}{
			{"authorizer.json", "AuthorizerFunction", func(t *testing.T) []byte {
				tok := mintToken(t, st, 1, 0, time.Now())
				return bytes.ReplaceAll(readEvent(t, "authorizer.json"), []byte(tokenPlaceholder), []byte(tok))
			}, func(t *testing.T, out []byte) string {
				var res events.APIGatewayV2CustomAuthorizerSimpleResponse
				if err := json.Unmarshal(out, &res); err != nil || !res.IsAuthorized {
					t.Fatalf("answer %s (%v), want authorized", out, err)
				}
				// API Gateway hands the context to the function as it is: the HTTP samples
				// carry exactly what the authorizer answers for user 1.
				if want := loadEvent(t, "locations-list.json").RequestContext.Authorizer.Lambda; !reflect.DeepEqual(res.Context, want) {
					t.Fatalf("context %v, want the HTTP samples' requestContext.authorizer.lambda %v", res.Context, want)
				}
				return "authorized user 1"
			}},
			{"webhooks-stream.json", "WebhooksFunction", nil, func(t *testing.T, out []byte) string {
				var res events.DynamoDBEventResponse
				if err := json.Unmarshal(out, &res); err != nil || len(res.BatchItemFailures) != 0 {
					t.Fatalf("answer %s (%v), want no batch item failure", out, err)
				}
				if got := queuedEvents(t, q); len(got) != 1 || got[0] != "location.created 1 1" {
					t.Fatalf("queue = %v, want the location's event for webhook 1", got)
				}
				return "no batch item failures, 1 event queued"
			}},
			{"webhooks-delivery.json", "WebhookDeliveryFunction", nil, func(t *testing.T, out []byte) string {
				var res events.SQSEventResponse
				if err := json.Unmarshal(out, &res); err != nil || len(res.BatchItemFailures) != 1 {
					t.Fatalf("answer %s (%v), want the message handed out again (its address does not resolve)", out, err)
				}
				if as, err := wh.Attempts(context.Background(), 1, w.ID, 10); err != nil || len(as) != 1 || as[0].Error == "" {
					t.Fatalf("attempts = %+v (%v), want one failed attempt", as, err)
				}
				return "1 failed attempt, retried"
			}},
			{"sweeper-schedule.json", "SweeperFunction", nil, nil},
		} {
			payload := readEvent(t, c.file)
			if c.payload != nil {
				payload = c.payload(t)
			}
			var what string
			var invokeErr error
			ok := t.Run(c.file, func(t *testing.T) {
				out, err := f.invoke(c.fn, payload)
				if invokeErr = err; err != nil {
					t.Fatal(err)
				}
				what = "ok"
				if c.check != nil {
					what = c.check(t, out)
				}
			})
			switch {
			case ok:
				rep.pass(c.file, c.fn, what)
			case invokeErr != nil:
				rep.fail(c.file, c.fn, "%v", invokeErr)
			default:
				rep.fail(c.file, c.fn, "its checks failed (above)")
			}
			if !ok {
				t.Logf("%s's log, last lines:\n%s", c.fn, f.logTail(c.fn))
			}
		}
	})

	// The maps samples' uploads are decoded by ImagesFunction, which MapsFunction invokes
	// through the Invoke API.
	if rt.invokes.Load() == 0 {
		t.Error("no function invoked ImagesFunction through LAMBDA_ENDPOINT: the images' invoke protocol went untried")
	}
	for _, e := range eventFiles(t) {
		if !slices.Contains(rep.files, e) {
			t.Errorf("events/%s is invoked by no step of TestLocalInvoke", e)
		}
	}
}

// invokeReport prints a line per event as it is invoked, and the counts at the end.
type invokeReport struct {
	files          []string
	passed, failed int
}

func (r *invokeReport) pass(file, fn, what string) {
	r.files, r.passed = append(r.files, file), r.passed+1
	fmt.Printf("PASS events/%s %s %s\n", file, fn, what)
}

func (r *invokeReport) fail(file, fn, format string, args ...any) {
	r.files, r.failed = append(r.files, file), r.failed+1
	fmt.Printf("FAIL events/%s %s %s\n", file, fn, fmt.Sprintf(format, args...))
}

func (r *invokeReport) summary(t *testing.T) {
	fmt.Printf("%d passed, %d failed\n", r.passed, r.failed)
	if r.failed > 0 {
		t.Errorf("%d of %d events failed", r.failed, r.passed+r.failed)
	}
}

// buildRIE installs the Lambda Runtime Interface Emulator into a temporary directory with the
// Makefile's rie target (the pinned Go module, from the module proxy or its cache).
func buildRIE(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("make", "-s", "-C", root, "rie", "RIE_BIN="+dir).CombinedOutput(); err != nil {
		t.Fatalf("make rie: %v\n%s", err, out)
	}
	return filepath.Join(dir, "aws-lambda-rie")
}

// buildFunctionsForHost builds every function of functionPackages as its Makefile target
// does, for this machine (a few at once: the links dominate).
func buildFunctionsForHost(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	var mu sync.Mutex
	bins := map[string]string{}
	var g errgroup.Group
	g.SetLimit(max(2, runtime.NumCPU()))
	for _, fn := range slices.Sorted(maps.Keys(functionPackages)) {
		g.Go(func() error {
			bin, err := buildForHost(fn, filepath.Join(dir, fn))
			mu.Lock()
			defer mu.Unlock()
			bins[fn] = bin
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return bins
}

func readEnvJSON(t *testing.T) map[string]map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("env.json: %v", err)
	}
	return env
}

// localRuntime is what every fleet of a run shares: the template, the emulator, the binaries,
// env.json and the local servers.
type localRuntime struct {
	tpl               cfn
	rie               string
	bins              map[string]string
	env               map[string]map[string]string
	dynamodb, s3, sqs string
	invokes           atomic.Int64 // served by the fleets' Invoke API
}

// fleet starts each function on its first invoke, over table, until the test ends. Its
// LAMBDA_ENDPOINT serves Lambda's Invoke API by function name, as `sam local start-lambda`
// does, so the families reach ImagesFunction through the real invoke protocol.
func (rt *localRuntime) fleet(t *testing.T, table string) *fleet {
	f := &fleet{t: t, rt: rt, table: table, dir: t.TempDir(), fns: map[string]*localFunction{}}
	f.lambda = httptest.NewServer(http.HandlerFunc(f.serveInvoke))
	t.Cleanup(func() {
		f.lambda.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, lf := range f.fns {
			lf.stop()
		}
	})
	return f
}

type fleet struct {
	t      *testing.T
	rt     *localRuntime
	table  string
	dir    string
	lambda *httptest.Server
	mu     sync.Mutex
	fns    map[string]*localFunction
}

// localFunction is one function's emulator process (and, from its first invoke, the
// function's process under it).
type localFunction struct {
	url  string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// environment is env.json's variables for fn with every endpoint on the host (host.docker.
// internal, or 127.0.0.1 for the readers' IMAGE_BASE_URL) moved to the server of this run
// that serves the port: DynamoDB Local, the local S3, the fleet's Invoke API. TABLE_NAME is
// the replay's own table, and lambdaEnv's allowances are those of the in-process replay.
func (f *fleet) environment(fn string) ([]string, error) {
	vars, ok := f.rt.env[fn]
	if !ok {
		return nil, fmt.Errorf("env.json has no %s", fn)
	}
	local := map[string]string{}
	for k, to := range map[string]string{"DYNAMODB_ENDPOINT": f.rt.dynamodb, "S3_ENDPOINT": f.rt.s3, "LAMBDA_ENDPOINT": f.lambda.URL, "SQS_ENDPOINT": f.rt.sqs} {
		if _, declared := vars[k]; !declared && k == "SQS_ENDPOINT" { // the webhook functions' alone
			continue
		}
		u, err := url.Parse(vars[k])
		if err != nil || u.Port() == "" {
			return nil, fmt.Errorf("env.json %s.%s = %q, want a local endpoint with its port", fn, k, vars[k])
		}
		local[u.Port()] = to
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.dir, "TMPDIR=" + f.dir,
		// What Lambda sets besides the function's variables; the keys are sam local's
		// placeholders (every endpoint is local).
		"AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1", "AWS_ACCESS_KEY_ID=lorekeep", "AWS_SECRET_ACCESS_KEY=lorekeep",
		"AWS_LAMBDA_FUNCTION_NAME=" + fn,
	}
	// The template's memory and timeout (the emulator's deadline for each invoke).
	for k, prop := range map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "MemorySize", "AWS_LAMBDA_FUNCTION_TIMEOUT": "Timeout"} {
		v, ok := f.rt.tpl.functionProp(fn, prop).(int)
		if !ok {
			return nil, fmt.Errorf("template.yaml: %s has no %s", fn, prop)
		}
		env = append(env, fmt.Sprintf("%s=%d", k, v))
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		v := vars[k]
		if u, err := url.Parse(v); err == nil && (u.Hostname() == "host.docker.internal" || u.Hostname() == "127.0.0.1") {
			to, ok := local[u.Port()]
			if !ok {
				return nil, fmt.Errorf("env.json %s.%s = %q: no local server of this run serves port %s", fn, k, v, u.Port())
			}
			v = strings.TrimSuffix(to, "/") + u.EscapedPath()
		}
		if k == "TABLE_NAME" {
			v = f.table
		}
		if o, ok := lambdaEnv[k]; ok {
			v = o
		}
		env = append(env, k+"="+v)
	}
	for _, k := range slices.Sorted(maps.Keys(lambdaEnv)) {
		if _, ok := vars[k]; !ok {
			env = append(env, k+"="+lambdaEnv[k])
		}
	}
	return env, nil
}

// get is fn's emulator, started on first use.
func (f *fleet) get(fn string) (*localFunction, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if lf := f.fns[fn]; lf != nil {
		return lf, nil
	}
	bin, ok := f.rt.bins[fn]
	if !ok {
		return nil, fmt.Errorf("no function %s", fn)
	}
	env, err := f.environment(fn)
	if err != nil {
		return nil, err
	}
	// A port found free can be taken before the emulator binds it: then it ends at once and
	// another pair is tried.
	for attempt := 1; ; attempt++ {
		lf, err := f.start(fn, bin, env)
		if err == nil {
			f.fns[fn] = lf
			return lf, nil
		}
		if !errors.Is(err, errEndedAtStart) || attempt == 3 {
			return nil, err
		}
	}
}

var errEndedAtStart = errors.New("the emulator ended at start")

func (f *fleet) start(fn, bin string, env []string) (*localFunction, error) {
	// Each emulator has its own two ports: the invoke endpoint (it listens on 0.0.0.0:8080
	// unless told) and the Runtime API its function polls (127.0.0.1:9001 unless told).
	invokeAddr, runtimeAddr := freeAddr(), freeAddr()
	lf := &localFunction{url: "http://" + invokeAddr + "/2015-03-31/functions/function/invocations",
		log: filepath.Join(f.dir, fn+".log"), done: make(chan struct{})}
	out, err := os.Create(lf.log)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	lf.cmd = exec.Command(f.rt.rie, "--runtime-interface-emulator-address", invokeAddr, "--runtime-api-address", runtimeAddr, bin)
	lf.cmd.Dir = filepath.Dir(bin)
	lf.cmd.Env = env
	lf.cmd.Stdout, lf.cmd.Stderr = out, out
	// Its own process group: stop ends the function's process with it, whatever happens.
	lf.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := lf.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the emulator for %s: %w", fn, err)
	}
	go func() { _ = lf.cmd.Wait(); close(lf.done) }()
	for deadline := time.Now().Add(15 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", invokeAddr, time.Second); err == nil {
			c.Close()
			return lf, nil
		}
		select {
		case <-lf.done:
			return nil, fmt.Errorf("%s: %w: %s", fn, errEndedAtStart, f.logTail(fn))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			lf.stop()
			return nil, fmt.Errorf("the emulator for %s did not listen on %s in 15 s", fn, invokeAddr)
		}
	}
}

func (lf *localFunction) stop() {
	_ = syscall.Kill(-lf.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-lf.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-lf.cmd.Process.Pid, syscall.SIGKILL)
		<-lf.done
	}
}

// functionError is Lambda's answer for a function that failed (an error, a panic, a crash).
type functionError struct {
	Message string `json:"errorMessage"`
	Type    string `json:"errorType"`
}

// invoke sends payload to fn and returns its answer; a function error is an error.
func (f *fleet) invoke(fn string, payload []byte) ([]byte, error) {
	out, fe, err := f.invokeRaw(fn, payload)
	if err == nil && fe != nil {
		err = fmt.Errorf("function error %s: %.300s", fe.Type, fe.Message)
	}
	return out, err
}

// invokeRaw is one RequestResponse invoke of fn through its emulator.
func (f *fleet) invokeRaw(fn string, payload []byte) ([]byte, *functionError, error) {
	lf, err := f.get(fn)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, lf.url, bytes.NewReader(payload))
	if err != nil {
		return nil, nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("invoke %s: %w", fn, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("invoke %s: %w", fn, err)
	}
	if res.StatusCode == http.StatusBadGateway {
		return nil, nil, fmt.Errorf("invoke %s: the emulator answered 502, the function's process failed (its log below): %.300s", fn, out)
	}
	if res.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("invoke %s: the emulator answered %d: %.300s", fn, res.StatusCode, out)
	}
	var fe functionError
	if json.Unmarshal(out, &fe) == nil && (fe.Type != "" || fe.Message != "") {
		return out, &fe, nil
	}
	return out, nil, nil
}

// invokeHTTP invokes fn with an API Gateway event and decodes its response.
func (f *fleet) invokeHTTP(fn string, raw []byte) (events.APIGatewayV2HTTPResponse, error) {
	var res events.APIGatewayV2HTTPResponse
	out, err := f.invoke(fn, raw)
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return res, fmt.Errorf("%s answered no API Gateway response: %.300s", fn, out)
	}
	return res, nil
}

// serveInvoke is Lambda's Invoke API for the fleet's functions by logical id (env.json's
// IMAGES_FUNCTION), answering a function error as Lambda does: 200 with X-Amz-Function-Error.
func (f *fleet) serveInvoke(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/2015-03-31/functions/")
	name, ok2 := strings.CutSuffix(name, "/invocations")
	if !ok || !ok2 || r.Method != http.MethodPost || f.rt.bins[name] == "" {
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"Type":"User","message":"Function not found"}`)
		return
	}
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.rt.invokes.Add(1)
	out, fe, err := f.invokeRaw(name, payload)
	if err != nil {
		f.t.Logf("invoke API: %v", err)
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if fe != nil {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
	}
	_, _ = w.Write(out)
}

// logTail is the end of fn's emulator log (the function's own lines among the emulator's).
func (f *fleet) logTail(fn string) string {
	raw, err := os.ReadFile(filepath.Join(f.dir, fn+".log"))
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		// Without the emulator's own bookkeeping of each invoke.
		if strings.Contains(l, "[INFO] (rapid)") || strings.HasPrefix(l, "START RequestId:") || strings.HasPrefix(l, "END RequestId:") || strings.HasPrefix(l, "REPORT RequestId:") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

// freeAddr is a loopback address with a port free now.
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}
