// Package dynamotest gives tests a real DynamoDB Local: the one `make test` started
// (LOREKEEP_TEST_DYNAMODB), or one started here for a plain `go test`. When neither is possible
// the tests fail; they never skip.
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

var endpoint string

// Main runs a test binary with DynamoDB Local available: call it from TestMain.
func Main(m *testing.M) int {
	endpoint = os.Getenv("LOREKEEP_TEST_DYNAMODB")
	if endpoint == "" {
		ep, stop, err := start()
		if err != nil {
			fmt.Fprintln(os.Stderr, "dynamotest: cannot start DynamoDB Local:", err)
			return 1
		}
		defer stop()
		endpoint = ep
	}
	return m.Run()
}

// start runs scripts/dynamodb-local.sh (which installs what is missing) on a free port.
func start() (string, func(), error) {
	root, err := moduleRoot()
	if err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	script := filepath.Join(root, "scripts", "dynamodb-local.sh")
	cmd := exec.Command(script, "start", port)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", nil, err
	}
	return "http://127.0.0.1:" + port, func() { _ = exec.Command(script, "stop", port).Run() }, nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found")
		}
		dir = parent
	}
}

// Endpoint is DynamoDB Local's URL, e.g. for a faultproxy in front of it.
func Endpoint(t testing.TB) string {
	t.Helper()
	if endpoint == "" {
		t.Fatal("dynamotest: no DynamoDB Local endpoint; call dynamotest.Main from TestMain")
	}
	return endpoint
}

// NewStore returns a store on a new table of its own, so tests never see each other's data.
func NewStore(t testing.TB, tweak ...func(*aws.Config)) (*store.Store, store.Config) {
	t.Helper()
	if endpoint == "" {
		t.Fatal("dynamotest: no DynamoDB Local endpoint; call dynamotest.Main from TestMain")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	cfg := store.Config{TableName: "t_" + strings.ToLower(t.Name()[:min(len(t.Name()), 40)]) + "_" + hex.EncodeToString(b), Endpoint: endpoint, Region: "us-east-1"}
	cfg.TableName = sanitize(cfg.TableName)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := kinds.Open(ctx, cfg, tweak...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateTableWithoutStream(ctx, st.Client(), cfg.TableName); err != nil {
		t.Fatalf("create table on DynamoDB Local at %s: %v", endpoint, err)
	}
	return st, cfg
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// Counter counts DynamoDB API operations (not retries) made through an SDK configuration,
// the items their queries and scans evaluated (ScannedCount: what DynamoDB reads and bills,
// filtered out or not), the range counter items (sk COUNT#...) reads returned and their size,
// the bytes of the items reads returned (DynamoDB's item size rule: attribute names and values), and the most calls in flight at once (reads meant to run
// concurrently show it above one).
type Counter struct {
	n, scanned, fetched, bytes, inFlight, maxInFlight atomic.Int64
	counterItems, counterBytes, waves                 atomic.Int64
	lastFanout                                        atomic.Int64 // the Fanout mark of the latest call that had one
	recording                                         atomic.Bool
	mu                                                sync.Mutex
	recorded                                          []Call
}

// Call is one recorded DynamoDB call: its input (*dynamodb.QueryInput...) and the round trip
// (Waves) it started in.
type Call struct {
	Wave  int64
	Input any
}

// Record starts (true) or stops recording the calls' inputs; starting forgets what was recorded.
func (c *Counter) Record(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if on {
		c.recorded = nil
	}
	c.recording.Store(on)
}

// Recorded are the calls recorded, in the order they started.
func (c *Counter) Recorded() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.recorded...)
}

// countCounters adds the counter items among items (a read's answer) and their sizes.
func (c *Counter) countCounters(items ...map[string]types.AttributeValue) {
	for _, it := range items {
		if sk, ok := it["sk"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "COUNT#") {
			c.counterItems.Add(1)
			c.counterBytes.Add(int64(ItemSize(it)))
		}
	}
}

// ItemSize is an item's size as DynamoDB counts it (attribute names and values; numbers
// approximated by their digits).
func ItemSize(it map[string]types.AttributeValue) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return (len(v.Value)+1)/2 + 1
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += (len(s)+1)/2 + 1
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + ItemSize(v.Value)
	}
	return 0
}

// Attach installs the counter on cfg; pass it to NewStore as a tweak.
func (c *Counter) Attach(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("lorekeep-count", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.n.Add(1)
			now := c.inFlight.Add(1)
			// A call of a fanout the last wave already counted is that round trip, even when the
			// scheduler started it after its siblings had answered.
			fan := telemetry.FanoutOf(ctx)
			if now == 1 && (fan == 0 || fan != c.lastFanout.Load()) {
				c.waves.Add(1)
			}
			if fan != 0 {
				c.lastFanout.Store(fan)
			}
			if c.recording.Load() {
				c.mu.Lock()
				c.recorded = append(c.recorded, Call{Wave: c.waves.Load(), Input: in.Parameters})
				c.mu.Unlock()
			}
			defer c.inFlight.Add(-1)
			for m := c.maxInFlight.Load(); now > m && !c.maxInFlight.CompareAndSwap(m, now); m = c.maxInFlight.Load() {
			}
			out, md, err := next.HandleInitialize(ctx, in)
			switch r := out.Result.(type) {
			case *dynamodb.QueryOutput:
				c.scanned.Add(int64(r.ScannedCount))
				c.countCounters(r.Items...)
				c.bytes.Add(itemsSize(r.Items...))
			case *dynamodb.GetItemOutput:
				c.countCounters(r.Item)
				c.bytes.Add(itemsSize(r.Item))
			case *dynamodb.BatchGetItemOutput:
				for _, items := range r.Responses {
					c.fetched.Add(int64(len(items)))
					c.countCounters(items...)
					c.bytes.Add(itemsSize(items...))
				}
			case *dynamodb.ScanOutput:
				c.scanned.Add(int64(r.ScannedCount))
				c.bytes.Add(itemsSize(r.Items...))
			}
			return out, md, err
		}), middleware.After)
	})
}

// Bytes is the size of the items reads returned since the last Reset.
func (c *Counter) Bytes() int64 { return c.bytes.Load() }

// Reset sets the counts to zero.
func (c *Counter) Reset() {
	c.n.Store(0)
	c.scanned.Store(0)
	c.bytes.Store(0)
	c.fetched.Store(0)
	c.maxInFlight.Store(0)
	c.waves.Store(0)
	c.lastFanout.Store(0)
	c.counterItems.Store(0)
	c.counterBytes.Store(0)
}

// CounterItems and CounterBytes are the range counter items reads returned since the last
// Reset, and their size.
func (c *Counter) CounterItems() int64 { return c.counterItems.Load() }
func (c *Counter) CounterBytes() int64 { return c.counterBytes.Load() }

// Fetched is the number of items BatchGetItem calls returned since the last Reset: with
// Scanned, every item a request read.
func (c *Counter) Fetched() int64 { return c.fetched.Load() }

func itemsSize(items ...map[string]types.AttributeValue) int64 {
	var n int64
	for _, it := range items {
		n += int64(ItemSize(it))
	}
	return n
}

// Scanned is the number of items queries and scans evaluated since the last Reset.
func (c *Counter) Scanned() int64 { return c.scanned.Load() }

// MaxInFlight is the most calls in flight at once since the last Reset.
func (c *Counter) MaxInFlight() int64 { return c.maxInFlight.Load() }

// Waves is the number of round trips since the last Reset as a client waits for them: calls
// that start while another is in flight overlap it and count once (a request whose reads run
// concurrently costs its longest chain of calls, not their number).
func (c *Counter) Waves() int64 { return c.waves.Load() }

// N is the number of calls since the last Reset.
func (c *Counter) N() int64 { return c.n.Load() }
