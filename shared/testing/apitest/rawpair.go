package apitest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/lorekeep/lorekeep/shared/gcpolicy"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// LambdaMemoryMB is the API functions' memory in template.yaml (Globals), which the
// collector's policy is sized by; the deploy tests keep the two equal.
const LambdaMemoryMB = 256

// PairRaw is issue 20's measure of the read path's own CPU: the throughput of GET path through
// the API handler against the throughput of the very DynamoDB calls that request makes
// (recorded from one request, then replayed with the same SDK client, calls of one round trip
// concurrently as the API makes them), at 1, 8 and 32 concurrent clients. After a warm-up
// round of each, the two alternate for PairRounds rounds (LOREKEEP_PAIR_ROUNDS, default 7),
// which side goes first alternating too, so that a burst of load elsewhere on the machine
// weighs on both. Per client count it reports the median of the rounds' api/raw throughput
// ratios (1.0: the API costs nothing beyond its DynamoDB calls) and the median process CPU per
// request of each side and of their difference (own-cpu-µs/req: the API's own cost, the
// steadier figure on a busy machine) and the bytes and allocations per request the API makes
// beyond the raw calls (own-B/req, own-allocs/req: the same on an idle or a loaded machine),
// and prints a line. Figures only: nothing is asserted.
// The request log is formatted as in production (httpapi.LogHandler) but written nowhere. Build the Env
// WithCachedAuth, so that the API, like a function behind API Gateway's authorizer cache, reads
// no token. Both sides run under the collector's policy on Lambda (gcpolicy, for a function of
// LambdaMemoryMB), as the functions do; LOREKEEP_PAIR_GC=default measures Go's defaults instead.
func (e *Env) PairRaw(b *testing.B, token, path string) {
	if os.Getenv("LOREKEEP_PAIR_GC") != "default" {
		defer gcpolicy.Apply(LambdaMemoryMB)()
	}
	calls := e.recordCalls(b, token, path)
	client := e.Store.Client()
	raw := func(ctx context.Context) error {
		for start := 0; start < len(calls); {
			end := start
			for end < len(calls) && calls[end].Wave == calls[start].Wave {
				end++
			}
			var wg sync.WaitGroup
			errs := make([]error, end-start)
			for i, c := range calls[start:end] {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = replay(ctx, client, c.Input) }()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			start = end
		}
		return nil
	}
	api := func(ctx context.Context) error {
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		e.API.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			return fmt.Errorf("%d %s", w.Code, w.Body)
		}
		return nil
	}
	prev := slog.Default()
	slog.SetDefault(slog.New(httpapi.NewLogHandler(io.Discard)))
	defer slog.SetDefault(prev)
	rounds := PairRounds()
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				throughput(b, clients, api) // warm-up: connections, pools, caches
				throughput(b, clients, raw)
				var ratios, apiCPU, rawCPU, ownCPU []float64
				var apiOps, rawOps float64
				var apiAlloc, rawAlloc allocs
				for round := 0; round < rounds; round++ {
					var a, r pairSide
					if round%2 == 0 {
						a, r = measure(b, clients, api), measure(b, clients, raw)
					} else {
						r, a = measure(b, clients, raw), measure(b, clients, api)
					}
					apiOps, rawOps = apiOps+a.ops, rawOps+r.ops
					ratios = append(ratios, a.ops/r.ops)
					apiCPU, rawCPU = append(apiCPU, a.cpuPer), append(rawCPU, r.cpuPer)
					ownCPU = append(ownCPU, a.cpuPer-r.cpuPer)
					apiAlloc, rawAlloc = apiAlloc.add(a), rawAlloc.add(r)
				}
				ratio, own := median(ratios), median(ownCPU)
				b.ReportMetric(ratio, "api/raw")
				b.ReportMetric(apiOps/float64(rounds), "api-req/s")
				b.ReportMetric(rawOps/float64(rounds), "raw-req/s")
				b.ReportMetric(median(apiCPU), "api-cpu-µs/req")
				b.ReportMetric(median(rawCPU), "raw-cpu-µs/req")
				b.ReportMetric(own, "own-cpu-µs/req")
				ownBytes, ownAllocs := apiAlloc.bytesPer()-rawAlloc.bytesPer(), apiAlloc.allocsPer()-rawAlloc.allocsPer()
				b.ReportMetric(ownBytes, "own-B/req")
				b.ReportMetric(ownAllocs, "own-allocs/req")
				fmt.Printf("pair %s: api %.0f/s raw %.0f/s (%d calls) api/raw median %.2f (%.2f-%.2f over %d rounds); CPU per request api %.0f µs raw %.0f µs own %.0f µs; own allocations %.0f B, %.0f per request\n",
					b.Name(), apiOps/float64(rounds), rawOps/float64(rounds), len(calls), ratio, slices.Min(ratios), slices.Max(ratios), rounds,
					median(apiCPU), median(rawCPU), own, ownBytes, ownAllocs)
			}
		})
	}
}

// PairRounds is how many alternating rounds PairRaw runs per client count:
// LOREKEEP_PAIR_ROUNDS, default 7.
func PairRounds() int {
	if n, err := strconv.Atoi(os.Getenv("LOREKEEP_PAIR_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 7
}

// pairSide is one side of a round: requests per second, CPU microseconds per request, and
// the requests, bytes and allocations counted.
type pairSide struct {
	ops, cpuPer       float64
	n, bytes, mallocs uint64
}

// allocs sums sides' allocations: unlike CPU, the same whatever else the machine runs.
type allocs struct{ n, bytes, mallocs uint64 }

func (a allocs) add(s pairSide) allocs {
	return allocs{a.n + s.n, a.bytes + s.bytes, a.mallocs + s.mallocs}
}
func (a allocs) bytesPer() float64  { return float64(a.bytes) / float64(max(a.n, 1)) }
func (a allocs) allocsPer() float64 { return float64(a.mallocs) / float64(max(a.n, 1)) }

func measure(b *testing.B, clients int, op func(context.Context) error) pairSide {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	ops, n, cpu := throughput(b, clients, op)
	runtime.ReadMemStats(&m1)
	return pairSide{ops: ops, cpuPer: float64(cpu.Microseconds()) / float64(n),
		n: uint64(n), bytes: m1.TotalAlloc - m0.TotalAlloc, mallocs: m1.Mallocs - m0.Mallocs}
}

// median of xs (not empty); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// pairRound is how long one side of a round runs: LOREKEEP_PAIR_ROUND_MS, default 300 (longer
// rounds weigh less the collector's cycles, which fall on one side or the other).
var pairRound = func() time.Duration {
	if ms, err := strconv.Atoi(os.Getenv("LOREKEEP_PAIR_ROUND_MS")); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return 300 * time.Millisecond
}()

// throughput runs op from clients goroutines for pairRound: operations per second, and the CPU
// time the process used meanwhile.
func throughput(b *testing.B, clients int, op func(context.Context) error) (float64, int64, time.Duration) {
	cpu0 := cpuTime()
	var n atomic.Int64
	var failed atomic.Value
	start := time.Now()
	deadline := start.Add(pairRound)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if err := op(context.Background()); err != nil {
					failed.Store(err)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	// Per second of the time the clients ran: the last requests end after the deadline.
	return float64(n.Load()) / time.Since(start).Seconds(), n.Load(), cpuTime() - cpu0
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// recordCalls makes the request once (warm) and records the DynamoDB calls of a second.
func (e *Env) recordCalls(b *testing.B, token, path string) []dynamotest.Call {
	if r := e.Do("GET", path, token, nil); r.Status != 200 {
		b.Fatalf("%s: %d %s", path, r.Status, r.Raw)
	}
	e.Counter.Reset()
	e.Counter.Record(true)
	r := e.Do("GET", path, token, nil)
	e.Counter.Record(false)
	if r.Status != 200 {
		b.Fatalf("%s: %d %s", path, r.Status, r.Raw)
	}
	return e.Counter.Recorded()
}

// replay makes one recorded call again.
func replay(ctx context.Context, c *dynamodb.Client, in any) error {
	var err error
	switch v := in.(type) {
	case *dynamodb.GetItemInput:
		_, err = c.GetItem(ctx, v)
	case *dynamodb.BatchGetItemInput:
		_, err = c.BatchGetItem(ctx, v)
	case *dynamodb.QueryInput:
		_, err = c.Query(ctx, v)
	case *dynamodb.ScanInput:
		_, err = c.Scan(ctx, v)
	default:
		err = fmt.Errorf("apitest: cannot replay %T", in)
	}
	return err
}
