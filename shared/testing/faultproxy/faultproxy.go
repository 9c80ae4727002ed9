// Package faultproxy is an HTTP reverse proxy in front of DynamoDB Local that injects faults per
// DynamoDB operation: error answers as DynamoDB sends them, dropped connections and delays. Tests
// point a store at it to exercise the unavailable paths against real storage:
//
//	p := faultproxy.Start(t, dynamotest.Endpoint(t))
//	st, _ := dynamotest.NewStore(t, p.Attach)
//	p.Inject(faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.Throttling})
//	... // every TransactWriteItems now answers ThrottlingException
//	p.Calls("TransactWriteItems") // HTTP calls seen, retries included
package faultproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Fault is what the proxy does instead of (or before) forwarding a call.
type Fault struct {
	Status  int    // HTTP status of the error answer; 0 forwards the call
	Type    string // DynamoDB error type, e.g. "ThrottlingException"
	Message string
	Reasons []string      // TransactionCanceledException cancellation reason codes, in item order
	Drop    bool          // close the connection without an answer
	Delay   time.Duration // wait this long first (or until the client gives up)
	// After DynamoDB has handled the call (and committed a write): LateAnswer holds its answer
	// back this long (or until the client gives up); DropAnswer closes the connection instead
	// of answering. The client cannot tell whether its write happened.
	LateAnswer time.Duration
	DropAnswer bool
}

// The faults DynamoDB answers under load or outage.
var (
	Throttling                    = Fault{Status: 400, Type: "ThrottlingException", Message: "Rate of requests exceeds the allowed throughput."}
	ProvisionedThroughputExceeded = Fault{Status: 400, Type: "ProvisionedThroughputExceededException", Message: "The level of configured provisioned throughput for the table was exceeded."}
	InternalServerError           = Fault{Status: 500, Type: "InternalServerError", Message: "Internal server error"}
	Drop                          = Fault{Drop: true}
)

// TransactionCanceled answers TransactionCanceledException with one reason code per transaction
// item ("None", "ConditionalCheckFailed", "ThrottlingError", "TransactionConflict", ...).
func TransactionCanceled(reasons ...string) Fault {
	return Fault{Status: 400, Type: "TransactionCanceledException",
		Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(reasons, ", ") + "]",
		Reasons: reasons}
}

// AnswerLost forwards the call, then closes the connection without DynamoDB's answer.
var AnswerLost = Fault{DropAnswer: true}

// AnswerLate forwards the call and holds DynamoDB's answer back for d.
func AnswerLate(d time.Duration) Fault { return Fault{LateAnswer: d} }

// Delay forwards the call after d.
func Delay(d time.Duration) Fault { return Fault{Delay: d} }

// Rule says which calls get a fault.
type Rule struct {
	Op    string // operation ("TransactWriteItems" or "DynamoDB_20120810.TransactWriteItems"); "" is every operation
	Calls []int  // 1-based call numbers of Op (counted since the last Reset); nil is every call
	Fault Fault
}

// Proxy is a running fault-injecting proxy.
type Proxy struct {
	URL string

	srv    *httptest.Server
	mu     sync.Mutex
	rules  []Rule
	calls  map[string]int
	faults map[string]int
}

// Start runs a proxy to target (DynamoDB Local's URL), closed when the test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("faultproxy: target %q: %v", target, err)
	}
	p := &Proxy{calls: map[string]int{}, faults: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host // the signature covers Host
		},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := p.match(op(r.Header.Get("X-Amz-Target")))
		if !ok {
			rp.ServeHTTP(w, r)
			return
		}
		if f.Delay > 0 {
			// The server notices a client that gave up only once the body has been read.
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if f.DropAnswer || f.LateAnswer > 0 {
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			if f.DropAnswer {
				drop(w)
				return
			}
			select {
			case <-time.After(f.LateAnswer):
			case <-r.Context().Done():
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		switch {
		case f.Drop:
			drop(w)
		case f.Status != 0:
			writeError(w, f)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	p.URL = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

// drop resets the connection of w without an answer, as a dead load balancer does.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// Attach points an SDK configuration at the proxy; pass it to dynamotest.NewStore or store.Open.
func (p *Proxy) Attach(cfg *aws.Config) { cfg.BaseEndpoint = aws.String(p.URL) }

// Inject adds rules; the first matching rule applies.
func (p *Proxy) Inject(rules ...Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, rules...)
}

// Reset removes every rule and sets every counter to zero.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules, p.calls, p.faults = nil, map[string]int{}, map[string]int{}
}

// Calls is the number of HTTP calls of op (retries included) since the last Reset; "" is all.
func (p *Proxy) Calls(op string) int { return p.count(p.calls, op) }

// Faults is the number of calls of op that got a fault since the last Reset; "" is all.
func (p *Proxy) Faults(op string) int { return p.count(p.faults, op) }

// CallsByOp is a copy of the per-operation call counters.
func (p *Proxy) CallsByOp() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.calls))
	for k, v := range p.calls {
		out[k] = v
	}
	return out
}

func (p *Proxy) count(m map[string]int, o string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o == "" {
		n := 0
		for _, v := range m {
			n += v
		}
		return n
	}
	return m[op(o)]
}

func (p *Proxy) match(o string) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[o]++
	n := p.calls[o]
	for _, r := range p.rules {
		if (r.Op == "" || op(r.Op) == o) && (r.Calls == nil || slices.Contains(r.Calls, n)) {
			p.faults[o]++
			return r.Fault, true
		}
	}
	return Fault{}, false
}

// op is the operation name of an X-Amz-Target ("DynamoDB_20120810.GetItem" -> "GetItem").
func op(target string) string {
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return target
}

// writeError answers as DynamoDB does: JSON 1.0 with the type in __type and x-amzn-ErrorType.
func writeError(w http.ResponseWriter, f Fault) {
	ns := "com.amazonaws.dynamodb.v20120810#"
	if f.Type == "ThrottlingException" {
		ns = "com.amazon.coral.availability#"
	}
	body := map[string]any{"__type": ns + f.Type, "message": f.Message}
	if f.Reasons != nil {
		rs := make([]map[string]string, len(f.Reasons))
		for i, code := range f.Reasons {
			rs[i] = map[string]string{"Code": code}
			if code != "None" {
				rs[i]["Message"] = code
			}
		}
		body["CancellationReasons"] = rs
		body["Message"] = f.Message
		delete(body, "message")
	}
	raw, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-ErrorType", f.Type)
	w.Header().Set("X-Amzn-RequestId", "faultproxy")
	w.WriteHeader(f.Status)
	_, _ = w.Write(raw)
}
