package webhooks_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// createHookIn creates a webhook in campaign cid (the admin administers both of the env's).
func (e *env) createHookIn(t *testing.T, cid int64, url string) int64 {
	t.Helper()
	r := e.Do("POST", apitest.Path(cid, "/webhooks"), e.Admin, map[string]any{"url": url})
	if r.Status != 200 {
		t.Fatalf("create webhook: %d %s", r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

// awaitTrue waits (at most 60 s: a deadline, not a timing assertion) until ok holds.
// The last state tells what there was instead.
func awaitTrue(t *testing.T, what string, ok func() bool, state ...func() string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	got := ""
	for _, s := range state {
		got = ": got " + s()
	}
	t.Fatalf("never: %s%s", what, got)
}

// names are the records' names of deliveries, each event's first attempt, in arrival order.
func names(ds []delivery) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range ds {
		id := d.header.Get("X-Lorekeep-Event-Id")
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, fmt.Sprint(d.event["data"].(map[string]any)["name"]))
	}
	return out
}

// A campaign whose three webhooks answer nothing for as long as the test holds them delays
// nobody else: another campaign's deliveries arrive while all three are still held. Once they
// answer, each slow webhook gets its own events in order.
func TestASlowReceiverDelaysOnlyItsOwnWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{})
	slow, release := newSlowReceiver(t)
	fast := newReceiver(t, nil)
	var slowHooks []int64
	for i := range 3 {
		slowHooks = append(slowHooks, e.createHookIn(t, e.Campaign, fmt.Sprintf("%s/slow/%d", slow.URL, i)))
	}
	e.createHookIn(t, e.PublicCampaign, fast.URL+"/fast")
	for i := 1; i <= 3; i++ {
		if r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": fmt.Sprintf("Slow %d", i)}); r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	// Each slow webhook has its first event in flight, held; the rest wait behind it.
	awaitTrue(t, "the three slow webhooks' first deliveries held", func() bool { return slow.waiting.Load() == 3 })
	for i := 1; i <= 5; i++ {
		if r := e.Do("POST", apitest.Path(e.PublicCampaign, "/locations"), e.Admin, map[string]any{"name": fmt.Sprintf("Fast %d", i)}); r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	got := fast.wait(t, 5)
	if held := slow.waiting.Load(); held != 3 {
		t.Fatalf("the other campaign's 5 deliveries arrived with %d slow deliveries held, want all 3 still held: they waited for the slow receiver", held)
	}
	if n := len(slow.deliveries()); n != 3 {
		t.Fatalf("slow receiver got %d requests while held, want 3 (one per webhook: the rest wait in order)", n)
	}
	if fmt.Sprint(names(got)) != "[Fast 1 Fast 2 Fast 3 Fast 4 Fast 5]" {
		t.Errorf("fast deliveries = %v", names(got))
	}
	release()
	// Each slow webhook's deliveries (a held attempt that timed out is tried again: its first
	// attempt counts), by the path of its URL.
	of := func(i int) []string {
		var mine []delivery
		for _, d := range slow.deliveries() {
			if d.path == fmt.Sprintf("/slow/%d", i) {
				mine = append(mine, d)
			}
		}
		return names(mine)
	}
	awaitTrue(t, "each slow webhook's 3 events delivered", func() bool { return len(of(0))+len(of(1))+len(of(2)) == 9 },
		func() string { return fmt.Sprint(of(0), of(1), of(2)) })
	for i := range slowHooks {
		if fmt.Sprint(of(i)) != "[Slow 1 Slow 2 Slow 3]" {
			t.Errorf("slow webhook %d got %v, want its 3 events in order", i, of(i))
		}
	}
}

// One webhook's events arrive in the order they were queued, each once: a record's created,
// updated and deleted, whatever the other records' writes in between.
func TestOneWebhooksEventsArriveInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, nil)
	e.createHookIn(t, e.Campaign, rc.URL)
	var ids []int64
	for i := range 8 {
		loc := e.do(t, "POST", "/locations", map[string]any{"name": fmt.Sprintf("L%d", i)})
		ids = append(ids, int64(loc["id"].(float64)))
	}
	for i, id := range ids {
		e.do(t, "PATCH", fmt.Sprintf("/locations/%d", id), map[string]any{"name": fmt.Sprintf("L%d renamed", i)})
	}
	for _, id := range ids[:4] {
		e.do(t, "DELETE", fmt.Sprintf("/locations/%d", id), nil)
	}
	got := rc.wait(t, 20)
	seen := map[string]bool{}
	per := map[float64][]string{}
	for _, d := range got {
		id := d.header.Get("X-Lorekeep-Event-Id")
		if seen[id] {
			t.Errorf("event %s delivered twice", id)
		}
		seen[id] = true
		rid := d.event["data"].(map[string]any)["id"].(float64)
		per[rid] = append(per[rid], d.header.Get("X-Lorekeep-Event"))
	}
	for i, id := range ids {
		want := "[location.created location.updated]"
		if i < 4 {
			want = "[location.created location.updated location.deleted]"
		}
		if fmt.Sprint(per[float64(id)]) != want {
			t.Errorf("location %d: events %v, want %s", id, per[float64(id)], want)
		}
	}
}
