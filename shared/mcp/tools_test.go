package mcp_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A game master's evening through the tools, each answer checked against the REST API's own
// view of the store: campaigns, a batch create with Markdown entries and mentions, list, search,
// get by entity and by id with posts, update, posts CRUD, sub-resources, calendar, deletes with
// confirm, and changes_since from the sync pointers and tombstones.
func TestEveryToolAsTheAdmin(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, e.Admin)
	cid := e.Campaign

	camps := ok[page](t, cs, "list_campaigns", map[string]any{})
	if camps.Total != 2 || len(camps.Records) != 2 {
		t.Fatalf("campaigns: %+v", camps)
	}
	if c := ok[struct{ Record map[string]any }](t, cs, "get_campaign", map[string]any{"campaign_id": cid}); id(c.Record["id"]) != cid {
		t.Fatalf("campaign: %+v", c)
	}

	// Create: Markdown in, sanitised as HTML is, read back as Markdown; the REST API stores HTML.
	created := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": cid, "module": "characters", "idempotency_key": "evening-1",
		"items": []any{
			map[string]any{"name": "Ann", "entry": "Captain of the **Drowned Bell**.\n\n<script>alert(1)</script>"},
			map[string]any{"name": "Bo", "entry": "Sworn to [character:1|the captain]."},
			map[string]any{"name": "Hidden", "is_private": true},
		}})
	if created.Succeeded != 3 || created.Failed != 0 {
		t.Fatalf("create: %+v", created)
	}
	ann, bo, hidden := created.Results[0].Record, created.Results[1].Record, created.Results[2].Record
	if ann["entry"] != "Captain of the **Drowned Bell**." || bo["entry"] != "Sworn to [character:1|the captain]." {
		t.Errorf("entries back as Markdown: %q %q", ann["entry"], bo["entry"])
	}
	rest := e.Do("GET", apitest.Path(cid, "/characters/"+itoa(id(ann["id"]))), e.Admin, nil)
	if got, _ := rest.Data()["entry"].(string); strings.TrimSpace(got) != "<p>Captain of the <strong>Drowned Bell</strong>.</p>" {
		t.Errorf("stored entry %q: Markdown as sanitised HTML", got)
	}
	// The same call again replays every item: nothing is created twice.
	again := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": cid, "module": "characters", "idempotency_key": "evening-1",
		"items": []any{
			map[string]any{"name": "Ann", "entry": "Captain of the **Drowned Bell**.\n\n<script>alert(1)</script>"},
			map[string]any{"name": "Bo", "entry": "Sworn to [character:1|the captain]."},
			map[string]any{"name": "Hidden", "is_private": true},
		}})
	for _, r := range again.Results {
		if !r.OK || !r.Replayed || id(r.Record["id"]) != id(created.Results[r.Index].Record["id"]) {
			t.Errorf("replay %d: %+v", r.Index, r)
		}
	}
	if n := e.Do("GET", apitest.Path(cid, "/characters"), e.Admin, nil).Body["meta"].(map[string]any)["total"]; n != float64(3) {
		t.Errorf("characters after the replay: %v, want 3", n)
	}

	list := ok[page](t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "characters", "limit": 2})
	if list.Total != 3 || len(list.Records) != 2 || list.NextCursor == "" {
		t.Fatalf("list: %+v", list)
	}
	next := ok[page](t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "characters", "cursor": list.NextCursor})
	if len(next.Records) != 1 || next.NextCursor != "" || id(next.Records[0]["id"]) != id(hidden["id"]) {
		t.Fatalf("next page: %+v", next)
	}
	filtered := ok[page](t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "character", "filters": map[string]any{"name": "Bo"}, "slim": true})
	if len(filtered.Records) != 1 || filtered.Records[0]["name"] != "Bo" || filtered.Records[0]["entry"] != nil {
		t.Fatalf("filtered slim list: %+v", filtered)
	}
	if s := ok[page](t, cs, "search", map[string]any{"campaign_id": cid, "term": "Ann"}); len(s.Records) != 1 {
		t.Fatalf("search: %+v", s)
	}

	// Posts CRUD on Ann's entity, then get_records by entity id (with posts) and by module and id.
	annEntity := id(ann["entity_id"])
	post := ok[batch](t, cs, "posts", map[string]any{"campaign_id": cid, "entity_id": annEntity, "action": "create",
		"fields": map[string]any{"name": "Session 1", "entry": "We met *Bo*."}, "idempotency_key": "post-1"})
	if !post.Results[0].OK || post.Results[0].Record["entry"] != "We met *Bo*." {
		t.Fatalf("post create: %+v", post)
	}
	pid := id(post.Results[0].Record["id"])
	if u := ok[batch](t, cs, "posts", map[string]any{"campaign_id": cid, "entity_id": annEntity, "action": "update", "post_id": pid,
		"fields": map[string]any{"name": "Session one"}}); u.Results[0].Record["name"] != "Session one" {
		t.Fatalf("post update: %+v", u)
	}
	if g := ok[batch](t, cs, "posts", map[string]any{"campaign_id": cid, "entity_id": annEntity, "action": "get", "post_id": pid}); !g.Results[0].OK {
		t.Fatalf("post get: %+v", g)
	}
	if l := ok[batch](t, cs, "posts", map[string]any{"campaign_id": cid, "entity_id": annEntity, "action": "list"}); len(l.Results) != 1 {
		t.Fatalf("post list: %+v", l)
	}
	got := ok[batch](t, cs, "get_records", map[string]any{"campaign_id": cid, "posts": true, "items": []any{
		map[string]any{"entity_id": annEntity}, map[string]any{"module": "characters", "id": id(bo["id"])}, map[string]any{"entity_id": 999999},
	}})
	if !got.Results[0].OK || got.Results[0].Record["name"] != "Ann" || len(got.Results[0].Posts) != 1 || got.Results[0].Posts[0]["entry"] != "We met *Bo*." {
		t.Errorf("get by entity: %+v", got.Results[0])
	}
	if !got.Results[1].OK || got.Results[1].Record["name"] != "Bo" || got.Results[2].OK || got.Results[2].Status != 404 {
		t.Errorf("get by id / missing: %+v %+v", got.Results[1], got.Results[2])
	}

	// Sub-resources: an attribute of Ann's entity, through the action argument.
	attr := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "entity_id": annEntity, "resource": "attributes", "action": "create",
		"fields": map[string]any{"name": "Strength", "value": "14"}})
	if !attr.Results[0].OK {
		t.Fatalf("attribute create: %+v", attr)
	}
	if l := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "entity_id": annEntity, "resource": "attributes", "action": "list"}); len(l.Results) != 1 {
		t.Fatalf("attributes: %+v", l)
	}
	if l := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "entity_id": id(bo["entity_id"]), "resource": "mentions", "action": "list"}); l.Failed != 0 {
		t.Fatalf("mentions: %+v", l)
	}

	// An organisation's members: Ann joins the Crew.
	org := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": cid, "module": "organisations", "items": []any{map[string]any{"name": "Crew"}}})
	orgID := id(org.Results[0].Record["id"])
	mem := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "organisation_id": orgID, "resource": "organisation_members", "action": "create",
		"fields": map[string]any{"character_id": id(ann["id"]), "role": "Captain"}})
	if !mem.Results[0].OK {
		t.Fatalf("member create: %+v", mem.Results[0].Error)
	}
	if l := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "organisation_id": orgID, "resource": "organisation_members", "action": "list"}); len(l.Results) != 1 {
		t.Fatalf("members: %+v", l)
	}
	if m := toolErr(t, cs, "entity_resources", map[string]any{"campaign_id": cid, "resource": "organisation_members", "action": "list"}); !strings.Contains(m, "organisation_id") {
		t.Errorf("members without the organisation: %s", m)
	}
	// Ann's inventory: a rope.
	line := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "entity_id": annEntity, "resource": "inventory", "action": "create",
		"fields": map[string]any{"name": "Rope", "amount": 2}})
	if !line.Results[0].OK || line.Results[0].Record["name"] != "Rope" {
		t.Fatalf("inventory create: %+v", line.Results[0])
	}
	if l := ok[batch](t, cs, "entity_resources", map[string]any{"campaign_id": cid, "entity_id": annEntity, "resource": "inventory", "action": "list"}); len(l.Results) != 1 {
		t.Fatalf("inventory: %+v", l)
	}
	since := ok[page](t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "characters", "limit": 1}).Sync

	// Update, then what changed since the last sync.
	apitest.WaitPastSync(t, since)
	upd := ok[batch](t, cs, "update_records", map[string]any{"campaign_id": cid, "module": "characters",
		"items": []any{map[string]any{"id": id(bo["id"]), "title": "First mate"}, map[string]any{"title": "no id"}}})
	if !upd.Results[0].OK || upd.Results[0].Record["title"] != "First mate" || upd.Results[1].OK || !strings.Contains(upd.Results[1].Error.Message, "items[1].id") {
		t.Fatalf("update: %+v", upd)
	}
	if toolErr(t, cs, "delete_records", map[string]any{"campaign_id": cid, "module": "characters", "ids": []any{id(hidden["id"])}}) == "" {
		t.Fatal("a delete without confirm")
	}
	del := ok[batch](t, cs, "delete_records", map[string]any{"campaign_id": cid, "module": "characters", "ids": []any{id(hidden["id"]), 999999}, "confirm": true})
	if !del.Results[0].OK || del.Results[1].OK || del.Results[1].Status != 404 {
		t.Fatalf("delete: %+v", del)
	}
	if r := e.Do("GET", apitest.Path(cid, "/characters/"+itoa(id(hidden["id"]))), e.Admin, nil); r.Status != 404 {
		t.Errorf("deleted character: %d", r.Status)
	}
	changes := ok[struct {
		Changed []map[string]any
		Removed []struct {
			ID   int64
			Kind string
		}
		Sync string
	}](t, cs, "changes_since", map[string]any{"campaign_id": cid, "since": since})
	if len(changes.Changed) != 1 || id(changes.Changed[0]["child_id"]) != id(bo["id"]) || changes.Sync == "" {
		t.Errorf("changed since: %+v", changes.Changed)
	}
	if len(changes.Removed) != 1 || changes.Removed[0].ID != id(hidden["entity_id"]) || changes.Removed[0].Kind != "deleted" {
		t.Errorf("removed since: %+v", changes.Removed)
	}
	if m := toolErr(t, cs, "changes_since", map[string]any{"campaign_id": cid, "since": "2000-01-01"}); !strings.Contains(m, "since: more than 30 days") {
		t.Errorf("an old since: %s", m)
	}

	// The calendar tools.
	cal := e.Do("POST", apitest.Path(cid, "/calendars"), e.Admin, map[string]any{"name": "Reckoning", "month_name": []string{"One", "Two"},
		"month_length": []int{30, 30}, "weekday": []string{"A", "B", "C"}, "current_year": 10, "current_month": 1, "current_day": 5})
	if cal.Status != 200 {
		t.Fatalf("calendar: %d %v", cal.Status, cal.Body)
	}
	calID := id(cal.Data()["id"])
	today := ok[batch](t, cs, "calendar", map[string]any{"campaign_id": cid, "calendar_id": calID, "action": "today"})
	adv := ok[batch](t, cs, "calendar", map[string]any{"campaign_id": cid, "calendar_id": calID, "action": "advance", "days": 3, "idempotency_key": "adv-1"})
	if !today.Results[0].OK || !adv.Results[0].OK || adv.Results[0].Record["date"] == today.Results[0].Record["date"] {
		t.Errorf("today %v, advanced %v", today.Results[0].Record["date"], adv.Results[0].Record["date"])
	}
	if d := ok[batch](t, cs, "calendar", map[string]any{"campaign_id": cid, "calendar_id": calID, "action": "day"}); len(d.Results) != 1 {
		t.Errorf("day: %+v", d)
	}
	if r := ok[batch](t, cs, "calendar", map[string]any{"campaign_id": cid, "calendar_id": calID, "action": "reminders"}); r.Failed != 0 {
		t.Errorf("reminders: %+v", r)
	}
	if m := toolErr(t, cs, "calendar", map[string]any{"campaign_id": cid, "calendar_id": calID, "action": "day", "from": "10-1-1", "to": "10-2-30"}); !strings.Contains(m, "to:") {
		t.Errorf("a long day range: %s", m)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Each role gets through the tools exactly what its REST requests get: viewers read but never
// write, members never see an admin's private record, outsiders see nothing of a private
// campaign (and what they get is indistinguishable from a missing record).
func TestToolsApplyTheCallersRoleAndEachRecordsPrivacy(t *testing.T) {
	e := newEnv(t)
	admin := connect(t, e, e.Admin)
	cid := e.Campaign
	made := ok[batch](t, admin, "create_records", map[string]any{"campaign_id": cid, "module": "locations",
		"items": []any{map[string]any{"name": "Open"}, map[string]any{"name": "Secret", "is_private": true}}})
	open, secret := made.Results[0].Record, made.Results[1].Record

	cases := []struct {
		who                     string
		token                   string
		listTotal               int
		readOpen, readSecret    int
		create, update, destroy int
	}{
		{"member", e.Member, 1, 200, 404, 200, 404, 404},
		{"viewer", e.Viewer, 1, 200, 404, 403, 403, 403},
		{"outsider", e.Outsider, -1, 404, 404, 404, 404, 404},
	}
	for _, c := range cases {
		t.Run(c.who, func(t *testing.T) {
			cs := connect(t, e, c.token)
			if c.listTotal < 0 {
				if m := toolErr(t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "locations"}); !strings.Contains(m, "HTTP 404") {
					t.Errorf("list: %s", m)
				}
			} else {
				p := ok[page](t, cs, "list_records", map[string]any{"campaign_id": cid, "module": "locations"})
				for _, r := range p.Records {
					if id(r["id"]) == id(secret["id"]) {
						t.Errorf("the list shows the private location")
					}
				}
				if len(p.Records) != p.Total || p.Total < c.listTotal {
					t.Errorf("list: %+v", p)
				}
			}
			got := ok[batch](t, cs, "get_records", map[string]any{"campaign_id": cid, "items": []any{
				map[string]any{"module": "locations", "id": id(open["id"])}, map[string]any{"entity_id": id(secret["entity_id"])}}})
			if got.Results[0].Status != c.readOpen || got.Results[1].Status != c.readSecret || got.Results[1].Record != nil {
				t.Errorf("reads: %d %d (%v)", got.Results[0].Status, got.Results[1].Status, got.Results[1].Record)
			}
			w := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": cid, "module": "locations", "items": []any{map[string]any{"name": "By " + c.who}}})
			u := ok[batch](t, cs, "update_records", map[string]any{"campaign_id": cid, "module": "locations", "items": []any{map[string]any{"id": id(secret["id"]), "name": "Renamed"}}})
			d := ok[batch](t, cs, "delete_records", map[string]any{"campaign_id": cid, "module": "locations", "ids": []any{id(secret["id"])}, "confirm": true})
			if w.Results[0].Status != c.create || u.Results[0].Status != c.update || d.Results[0].Status != c.destroy {
				t.Errorf("writes: create %d update %d delete %d", w.Results[0].Status, u.Results[0].Status, d.Results[0].Status)
			}
			if r := e.Do("GET", apitest.Path(cid, "/locations/"+itoa(id(secret["id"]))), e.Admin, nil); r.Status != 200 || r.Data()["name"] != "Secret" {
				t.Errorf("the secret location after %s's writes: %d %v", c.who, r.Status, r.Data()["name"])
			}
			// A campaign of someone else's is a 404 for everyone here.
			if m := toolErr(t, cs, "get_campaign", map[string]any{"campaign_id": e.OtherCampaign}); !strings.Contains(m, "HTTP 404") {
				t.Errorf("other campaign: %s", m)
			}
		})
	}
}

// Every bad argument is a tool error naming the argument, never a protocol error or a 5xx,
// and changes nothing.
func TestBadArgumentsAreToolErrorsNamingTheArgument(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, e.Admin)
	cid := e.Campaign
	many := make([]any, 101)
	for i := range many {
		many[i] = map[string]any{"name": "x"}
	}
	cases := []struct {
		tool  string
		args  map[string]any
		names string
	}{
		{"list_records", map[string]any{"campaign_id": "one", "module": "characters"}, "campaign_id"},
		{"list_records", map[string]any{"campaign_id": cid}, "module"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "dragons"}, "module"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "limit": 1000}, "limit"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "page": -1}, "page"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "filters": map[string]any{"page": "2"}}, "filters"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "entry_format": "rtf"}, "entry_format"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "bogus": 1}, "bogus"},
		{"list_records", map[string]any{"campaign_id": 0, "module": "characters"}, "campaign_id"},
		{"search", map[string]any{"campaign_id": cid, "term": " "}, "term"},
		{"get_records", map[string]any{"campaign_id": cid, "items": []any{}}, "items"},
		{"create_records", map[string]any{"campaign_id": cid, "module": "characters", "items": many}, "items"},
		{"create_records", map[string]any{"campaign_id": cid, "module": "characters", "items": []any{map[string]any{"name": "x"}}, "idempotency_key": strings.Repeat("k", 201)}, "idempotency_key"},
		{"create_records", map[string]any{"campaign_id": cid, "module": "characters", "items": "Ann"}, "items"},
		{"delete_records", map[string]any{"campaign_id": cid, "module": "characters", "ids": []any{1}}, "confirm"},
		{"delete_records", map[string]any{"campaign_id": cid, "module": "characters", "ids": []any{1}, "confirm": "yes"}, "confirm"},
		{"posts", map[string]any{"campaign_id": cid, "entity_id": 1, "action": "explode"}, "action"},
		{"posts", map[string]any{"campaign_id": cid, "entity_id": 1, "action": "get"}, "post_id"},
		{"entity_resources", map[string]any{"campaign_id": cid, "entity_id": 1, "resource": "quest_elements", "action": "list"}, "resource"},
		{"entity_resources", map[string]any{"campaign_id": cid, "entity_id": 1, "resource": "mentions", "action": "create", "fields": map[string]any{}}, "action"},
		{"changes_since", map[string]any{"campaign_id": cid, "since": "yesterday"}, "since"},
		{"calendar", map[string]any{"campaign_id": cid, "calendar_id": 1, "action": "warp"}, "action"},
		{"list_records", map[string]any{"campaign_id": cid, "module": "characters", "cursor": "%zz"}, "cursor"},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.names, func(t *testing.T) {
			if m := toolErr(t, cs, c.tool, c.args); !strings.Contains(m, c.names) {
				t.Errorf("%s: %q does not name %s", c.tool, m, c.names)
			}
		})
	}
	// A field the REST route refuses is named in the item's error, and nothing is written.
	b := ok[batch](t, cs, "create_records", map[string]any{"campaign_id": cid, "module": "characters", "items": []any{
		map[string]any{"name": strings.Repeat("n", 300)}, map[string]any{"name": "ok", "is_private": "maybe"}}})
	for _, r := range b.Results {
		if r.OK || r.Status != 422 || len(r.Error.Errors) == 0 {
			t.Errorf("item %d: %+v", r.Index, r)
		}
	}
	if n := e.Do("GET", apitest.Path(cid, "/characters"), e.Admin, nil).Body["meta"].(map[string]any)["total"]; n != float64(0) {
		t.Errorf("characters after refused writes: %v", n)
	}
	// What the SDK would refuse in plain text is answered in JSON, as every route answers.
	for _, c := range []struct {
		ct, accept string
		want       int
	}{
		{"text/plain", "application/json, text/event-stream", 415},
		{"application/json", "application/json", 422},
	} {
		req, _ := http.NewRequest("POST", e.Server.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+e.Admin)
		req.Header.Set("Content-Type", c.ct)
		req.Header.Set("Accept", c.accept)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s / %s: %d %s", c.ct, c.accept, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}
