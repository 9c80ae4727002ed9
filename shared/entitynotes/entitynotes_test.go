package entitynotes_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	entitynotes.Register(api, st)
}

// entity makes a location and returns its entity id.
func entity(t *testing.T, e *apitest.Env, cid int64, private bool) int64 {
	t.Helper()
	l := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Place", IsPrivate: private}}
	if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	return l.EntityID
}

func notes(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_notes", eid))
}

func createNote(t *testing.T, e *apitest.Env, cid, eid int64, token string, body map[string]any) int64 {
	t.Helper()
	r := e.Do("POST", notes(cid, eid), token, body)
	if r.Status != 200 {
		t.Fatalf("create note %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

func TestVisibilityMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	apitest.VisibilityMatrix(t, e, apitest.Family{
		Entity:     func(t *testing.T, cid int64) int64 { return entity(t, e, cid, false) },
		Collection: notes,
		Body:       func(vis string) map[string]any { return map[string]any{"name": "N " + vis, "visibility": vis} },
		Exists: func(cid, eid, id int64) bool {
			_, _, err := notestore.New(e.Store).GetNoteAndEntity(context.Background(), cid, eid, id)
			return err == nil
		},
	})
}

func TestNotesOfAHiddenEntityAreHidden(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, true)
	id := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Secret"})
	for _, c := range []struct{ method, path string }{
		{"GET", notes(e.Campaign, eid)},
		{"POST", notes(e.Campaign, eid)},
		{"GET", fmt.Sprintf("%s/%d", notes(e.Campaign, eid), id)},
		{"PATCH", fmt.Sprintf("%s/%d", notes(e.Campaign, eid), id)},
		{"DELETE", fmt.Sprintf("%s/%d", notes(e.Campaign, eid), id)},
	} {
		if r := e.Do(c.method, c.path, e.Member, map[string]any{"name": "x"}); r.Status != 404 {
			t.Errorf("member %s %s: %d, want 404", c.method, c.path, r.Status)
		}
	}
}

func TestNoteFieldsAndPartialUpdate(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	r := e.Do("POST", notes(e.Campaign, eid), e.Member, map[string]any{
		"name": "Rumours", "entry": "<p>Ask <i>Durnan</i></p><script>steal()</script>", "position": 2,
		"visibility_id": 5, "settings": map[string]any{"collapsed": 1}, "entity_id": 999,
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	want := map[string]any{"name": "Rumours", "entry": "<p>Ask <i>Durnan</i></p>", "entry_parsed": "<p>Ask <i>Durnan</i></p>",
		"position": float64(2), "visibility": "member", "entity_id": float64(eid), "created_by": float64(e.MemberID)}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	if fmt.Sprint(d["settings"]) != "map[collapsed:1]" {
		t.Errorf("settings = %v", d["settings"])
	}
	one := fmt.Sprintf("%s/%v", notes(e.Campaign, eid), d["id"])
	r = e.Do("PUT", one, e.Member2, map[string]any{"settings": []any{}, "visibility": "members", "position": nil})
	d = r.Data()
	if r.Status != 200 || d["name"] != "Rumours" || d["entry"] != "<p>Ask <i>Durnan</i></p>" || d["position"] != nil || d["visibility"] != "member" || fmt.Sprint(d["settings"]) != "[]" || d["updated_by"] != float64(e.Member2ID) {
		t.Fatalf("partial update: %d %s", r.Status, r.Raw)
	}
	// Default visibility is all.
	if r := e.Do("POST", notes(e.Campaign, eid), e.Member, map[string]any{"name": "Plain"}); r.Data()["visibility"] != "all" {
		t.Fatalf("default visibility: %s", r.Raw)
	}
}

// Kanka's forms send the settings object as settings[collapsed]=1, which PHP reads as an object.
func TestFormSettingsAreAnObject(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	form := url.Values{"name": {"Pinned"}, "visibility_id": {"1"}, "settings[collapsed]": {"1"}}
	r := e.DoRaw("POST", notes(e.Campaign, eid), e.Member, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if r.Status != 200 || fmt.Sprint(r.Data()["settings"]) != "map[collapsed:1]" {
		t.Fatalf("form create: %d %s", r.Status, r.Raw)
	}
}

func TestBadNoteInputIsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	theirs := entity(t, e, e.OtherCampaign, false)
	for i := 0; i < 3; i++ {
		theirs = entity(t, e, e.OtherCampaign, false) // past our ids
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing name", map[string]any{"entry": "x"}, "name"},
		{"192-character name", map[string]any{"name": strings.Repeat("n", 192)}, "name"},
		{"unknown visibility", map[string]any{"name": "N", "visibility": "friends"}, "visibility"},
		{"unknown visibility id", map[string]any{"name": "N", "visibility_id": 9}, "visibility_id"},
		{"position not an integer", map[string]any{"name": "N", "position": "first"}, "position"},
		{"settings not an object", map[string]any{"name": "N", "settings": "collapsed"}, "settings"},
		{"collapsed not a boolean", map[string]any{"name": "N", "settings": map[string]any{"collapsed": "maybe"}}, "settings.collapsed"},
		{"name not a string", map[string]any{"name": []int{1}}, "name"},
		{"entry too large", map[string]any{"name": "N", "entry": strings.Repeat("a", domain.MaxEntryLength+1)}, "entry"},
		// Sanitising escapes each < to &lt;: four times the bytes, past DynamoDB's item limit.
		{"entry too large once sanitised", map[string]any{"name": "N", "entry": strings.Repeat("<", 150_000)}, "entry"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", notes(e.Campaign, eid), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if r := e.Do("POST", notes(e.Campaign, theirs), e.Admin, map[string]any{"name": "N"}); r.Status != 404 {
		t.Fatalf("entity of another campaign: %d", r.Status)
	}
	if r := e.Do("GET", notes(e.Campaign, eid), e.Admin, nil); len(r.List()) != 0 || r.Body["meta"].(map[string]any)["total"] != float64(0) {
		t.Fatalf("refused creates stored notes: %s", r.Raw)
	}
	// A note under another entity is not found.
	other := entity(t, e, e.Campaign, false)
	id := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Mine"})
	if r := e.Do("GET", fmt.Sprintf("%s/%d", notes(e.Campaign, other), id), e.Admin, nil); r.Status != 404 {
		t.Fatalf("note under the wrong entity: %d", r.Status)
	}
}

func TestHostileEntriesComeBackHarmless(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	hostile := []string{
		`<script>alert(1)</script>`,
		`<img src=x onerror=alert(1)>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href="JaVaScRiPt:alert(1)">x</a>`,
		`<svg><script>alert(1)</script></svg>`,
		`<svg onload=alert(1)>`,
		`<iframe src="https://evil.example"></iframe>`,
		`<div style="display:none">hidden</div>`,
		`<p class="d-none hidden">hidden by the client's CSS</p>`,
		`<<script>script>alert(1)<</script>/script>`,
		`<p onmouseover="alert(1)">hover`,
		`<object data="x.swf"></object><embed src="x.swf">`,
		`<form action="https://evil.example"><input name=x></form>`,
	}
	for _, h := range hostile {
		r := e.Do("POST", notes(e.Campaign, eid), e.Admin, map[string]any{"name": "H", "entry": h})
		entry := strings.ToLower(r.Data()["entry"].(string))
		for _, bad := range []string{"<script", "onerror", "onload", "onmouseover", "javascript:", "<iframe", "<svg", "style=", "<object", "<embed", "<form", "<input", "class="} {
			if strings.Contains(entry, bad) {
				t.Errorf("%q came back as %q (contains %s)", h, entry, bad)
			}
		}
	}
	safe := `<p><b>Bold</b> <i>it</i> <a href="https://example.org">link</a> <img src="https://img.example/a.png" alt="a"></p><ul><li>one</li></ul>`
	r := e.Do("POST", notes(e.Campaign, eid), e.Admin, map[string]any{"name": "Safe", "entry": safe})
	for _, keep := range []string{"<b>Bold</b>", "<i>it</i>", `href="https://example.org"`, `<img src="https://img.example/a.png"`, "<li>one</li>"} {
		if !strings.Contains(r.Data()["entry"].(string), keep) {
			t.Errorf("safe formatting lost: %s missing from %s", keep, r.Data()["entry"])
		}
	}
}

func TestMentionsResolveWithOneBatchedRead(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	hidden := entity(t, e, e.Campaign, true)
	var targets []int64
	for i := 0; i < 5; i++ {
		targets = append(targets, entity(t, e, e.Campaign, false))
	}
	// 20 notes, each mentioning entities (20 mentions in all, some repeated).
	for i := 0; i < 20; i++ {
		entry := fmt.Sprintf("<p>See [location:%d] and</p>", targets[i%5])
		if i == 0 {
			entry = fmt.Sprintf("<p>[location:%d|the &lt;b&gt;harbour&lt;/b&gt;] [location:%d] [location:99999]</p>", targets[0], hidden)
		}
		createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": fmt.Sprintf("N%d", i), "entry": entry})
	}
	e.Counter.Reset()
	r := e.Do("GET", notes(e.Campaign, eid), e.Member, nil)
	// access with the entity and the counts read ahead, the page query, one batched entity read
	// for every mention.
	if n := e.Counter.N(); n != 3 {
		t.Fatalf("note list with 20 mentions cost %d DynamoDB calls, want 3", n)
	}
	first := r.List()[0].(map[string]any)["entry_parsed"].(string)
	wantLink := fmt.Sprintf(`class="entity-mention" data-entity-type="location" data-entity-id="%d">the &lt;b&gt;harbour&lt;/b&gt;</a>`, targets[0])
	if !strings.Contains(first, wantLink) || strings.Count(first, "entity-mention-unknown") != 2 || strings.Contains(first, "[location") {
		t.Fatalf("entry_parsed: %s", first)
	}
	second := r.List()[1].(map[string]any)["entry_parsed"].(string)
	if !strings.Contains(second, ">Place</a>") || !strings.Contains(second, "/locations/") {
		t.Fatalf("a mention shows the entity's name and links to its record: %s", second)
	}
	// An admin sees the hidden entity's link.
	r = e.Do("GET", notes(e.Campaign, eid), e.Admin, nil)
	if first := r.List()[0].(map[string]any)["entry_parsed"].(string); strings.Count(first, "entity-mention-unknown") != 1 {
		t.Fatalf("admin entry_parsed: %s", first)
	}
}

func TestNoteRoundTripsStayWithinBudget(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	id := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Budget"})
	one := fmt.Sprintf("%s/%d", notes(e.Campaign, eid), id)
	for _, c := range []struct {
		name, method, path string
		body               any
		max                int64
	}{
		{"show", "GET", one, nil, 1 + 1},
		{"list page", "GET", notes(e.Campaign, eid), nil, 1 + 1 + 2},
		{"create", "POST", notes(e.Campaign, eid), map[string]any{"name": "New"}, 1 + 1 + 2},
		{"update", "PATCH", one, map[string]any{"entry": "x"}, 1 + 1 + 1},
		{"delete", "DELETE", one, nil, 1 + 1 + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			if r := e.Do(c.method, c.path, e.Admin, c.body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}

func TestDeletingALocationRemovesItsEntitysNotes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Doomed"}}
	if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	id := createNote(t, e, e.Campaign, l.EntityID, e.Admin, map[string]any{"name": "Gone soon"})
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", l.ID)), e.Admin, nil); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if _, _, err := notestore.New(e.Store).GetNoteAndEntity(context.Background(), e.Campaign, l.EntityID, id); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("note of a deleted location's entity: %v", err)
	}
	if r := e.Do("GET", notes(e.Campaign, l.EntityID), e.Admin, nil); r.Status != 404 {
		t.Fatalf("notes of a deleted entity: %d", r.Status)
	}
}

// Mentions are read from the entry's text only: one in an attribute or inside a link stays as
// written, and one whose text spans markup is not a mention.
func TestMentionsAreFoundInTextNodesOnly(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	target := entity(t, e, e.Campaign, false)
	entry := fmt.Sprintf(`<p title="[location:%d]">See [location:%d|the docks] and <a href="https://example.com/x">[location:%d]</a> and [location:%d|<b>bold</b>]</p>`, target, target, target, target)
	id := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Attr", "entry": entry})
	r := e.Do("GET", fmt.Sprintf("%s/%d", notes(e.Campaign, eid), id), e.Admin, nil)
	got := r.Data()["entry_parsed"].(string)
	link := fmt.Sprintf(`<a href="/api/1.0/campaigns/%d/locations/`, e.Campaign)
	for _, want := range []string{
		fmt.Sprintf(`<p title="[location:%d]">See `, target),
		link,
		fmt.Sprintf(`data-entity-id="%d">the docks</a> and <a href="https://example.com/x">[location:%d]</a>`, target, target),
		fmt.Sprintf(`[location:%d|<b>bold</b>]`, target),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("entry_parsed lacks %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "entity-mention"); n != 1 {
		t.Errorf("%d mentions resolved, want the one in text:\n%s", n, got)
	}
}

func TestAnEntryMentionsAtMostMaxMentionsEntities(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	mentions := func(distinct, repeat int) string {
		var b strings.Builder
		for i := 1; i <= distinct; i++ {
			for j := 0; j < repeat; j++ {
				fmt.Fprintf(&b, "[location:%d] ", i)
			}
		}
		return "<p>" + b.String() + "</p>"
	}
	for _, c := range []struct {
		name   string
		entry  string
		status int
	}{
		{"the limit, each mentioned many times", mentions(domain.MaxMentions, 20), 200},
		{"one more than the limit", mentions(domain.MaxMentions+1, 1), 422},
		{"thousands", mentions(13000, 1), 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", notes(e.Campaign, eid), e.Admin, map[string]any{"name": "Many", "entry": c.entry})
			if r.Status != c.status || (c.status == 422 && r.Errors()["entry"] == nil) {
				t.Fatalf("got %d %s", r.Status, r.Raw)
			}
		})
	}
	r := e.Do("GET", notes(e.Campaign, eid), e.Admin, nil)
	if r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("a refused note is not stored: %d %s", r.Status, r.Raw)
	}
}
