package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/sqstest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// lorekeep runs the built command against a table of the test's own.
type lorekeep struct {
	t     *testing.T
	bin   string
	env   []string
	st    *store.Store // the table's store, for checks the commands do not print
	table string
}

func newLorekeep(t *testing.T) *lorekeep {
	bin := filepath.Join(t.TempDir(), "lorekeep")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	st, cfg := dynamotest.NewStore(t)
	return &lorekeep{t: t, bin: bin, st: st, table: cfg.TableName, env: append(os.Environ(), "DYNAMODB_ENDPOINT="+cfg.Endpoint, "TABLE_NAME="+cfg.TableName, "AWS_REGION=us-east-1", "REQUEST_TIMEOUT=30s",
		"SQS_ENDPOINT="+sqstest.Endpoint(t))}
}

// json runs an admin command and decodes its one JSON object.
func (l *lorekeep) json(args ...string) map[string]any {
	l.t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Env = l.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		l.t.Fatalf("lorekeep %v: %v\n%s", args, err, stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil || bytes.Count(bytes.TrimSpace(out), []byte("\n")) != 0 {
		l.t.Fatalf("lorekeep %v printed %q, want one JSON object", args, out)
	}
	return m
}

func (l *lorekeep) fails(args ...string) {
	l.t.Helper()
	cmd := exec.Command(l.bin, args...)
	cmd.Env = l.env
	if out, err := cmd.Output(); err == nil {
		l.t.Fatalf("lorekeep %v succeeded with %s, want a failure", args, out)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestNewUserSession is the README's session: the demo campaign and token, then curl's
// create, read, update, list and delete against `lorekeep serve`.
func TestNewUserSession(t *testing.T) {
	l := newLorekeep(t)
	demo := l.json("demo")
	cid, token := demo["campaign_id"], demo["token"].(string)
	if again := l.json("demo"); again["campaign_id"] != cid || again["token"] == token {
		t.Fatalf("demo twice: %v then %v; want the same campaign and a new token", demo, again)
	}
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
	base := fmt.Sprintf("http://%s/api/1.0/campaigns/%v/locations", addr, cid)
	do := func(method, url, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	status, created := do("POST", base, `{"name":"Phandalin","type":"Town"}`)
	if status != 200 {
		t.Fatalf("create: %d %v", status, created)
	}
	one := fmt.Sprintf("%s/%v", base, created["data"].(map[string]any)["id"])
	if status, got := do("GET", one, ""); status != 200 || got["data"].(map[string]any)["name"] != "Phandalin" {
		t.Fatalf("read: %d %v", status, got)
	}
	if status, got := do("PATCH", one, `{"type":"Village"}`); status != 200 || got["data"].(map[string]any)["type"] != "Village" {
		t.Fatalf("update: %d %v", status, got)
	}
	if status, got := do("GET", base, ""); status != 200 || len(got["data"].([]any)) != 1 {
		t.Fatalf("list: %d %v", status, got)
	}
	// A token bound to the 2022 field set reads the same record without today's fields.
	if _, has := created["data"].(map[string]any)["entity_image_uuid"]; !has {
		t.Fatalf("a token of every field answered no entity_image_uuid: %v", created)
	}
	bound := l.json("token", "create", "--user", "demo", "--field-set", "2022")
	if bound["field_set"] != "2022" {
		t.Fatalf("token create --field-set 2022: %v", bound)
	}
	everyField := token
	token = bound["token"].(string)
	status, got := do("GET", one, "")
	rec, _ := got["data"].(map[string]any)
	_, uuid := rec["entity_image_uuid"]
	_, parsed := rec["entry_parsed"]
	if status != 200 || rec["name"] != "Phandalin" || uuid || parsed {
		t.Fatalf("read with a 2022 token: %d %v, want the location without entity_image_uuid and entry_parsed", status, got)
	}
	token = everyField
	if status, got := do("DELETE", one, ""); status != 200 || got["data"].(map[string]any)["deleted"] != true {
		t.Fatalf("delete: %d %v", status, got)
	}
	if status, _ := do("GET", one, ""); status != 404 {
		t.Fatalf("read after delete: %d", status)
	}

	// Administration: a member's token works, and stops working once revoked.
	m := l.json("member", "add", "--campaign", fmt.Sprint(cid), "--user", "bard", "--role", "viewer")
	if m["role"] != "viewer" || m["token"] == "" || m["user_id"] == nil {
		t.Fatalf("member add: %v", m)
	}
	token = m["token"].(string)
	if status, _ := do("GET", base, ""); status != 200 {
		t.Fatalf("viewer read: %d", status)
	}
	if status, _ := do("POST", base, `{"name":"X"}`); status != 403 {
		t.Fatalf("viewer write: %d", status)
	}
	if r := l.json("token", "revoke", "--token", token); r["revoked"] != true {
		t.Fatalf("revoke: %v", r)
	}
	if status, _ := do("GET", base, ""); status != 401 {
		t.Fatalf("revoked token: %d", status)
	}
}

func TestAdminCommands(t *testing.T) {
	l := newLorekeep(t)
	if r := l.json("init"); r["created"] != false { // NewStore made the table already
		t.Fatalf("init: %v", r)
	}
	// init turns expiry on, by attribute ttl, as the template does on AWS.
	ttl, err := l.st.Client().DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(l.table)})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "ttl" {
		t.Fatalf("TTL after init: %+v %v", ttl, err)
	}
	c := l.json("campaign", "create", "--name", "Tomb", "--owner", "gm", "--public", "--boost", "superboosted")
	if c["campaign_id"] == nil || c["user_id"] == nil || !strings.Contains(c["token"].(string), ".") {
		t.Fatalf("campaign create: %v", c)
	}
	c2 := l.json("campaign", "create", "--name", "Second", "--owner", "gm")
	if c2["user_id"] != c["user_id"] || c2["campaign_id"] == c["campaign_id"] {
		t.Fatalf("same owner, new campaign: %v %v", c, c2)
	}
	tok := l.json("token", "create", "--user", "gm", "--expires", "1h")
	if tok["user_id"] != c["user_id"] || tok["token"] == c["token"] {
		t.Fatalf("token create: %v", tok)
	}
	// The payload is readable JWT claims, as some Kanka clients expect.
	parts := strings.Split(tok["token"].(string), ".")
	if len(parts) != 3 {
		t.Fatalf("token not JWT-shaped: %v", tok["token"])
	}
	l.fails("member", "add", "--campaign", "999", "--user", "x", "--role", "member")
	l.fails("member", "add", "--campaign", "1", "--user", "x", "--role", "owner")
	l.fails("campaign", "create", "--name", "No owner")
	l.fails("campaign", "create", "--name", "X", "--owner", "gm", "--boost", "mega")
	l.fails("token", "revoke", "--token", "not-a-token")
	l.fails("frobnicate")
}
