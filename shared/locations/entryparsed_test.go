package locations_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestEntryParsed: a location's entry_parsed (Kanka today) is its entry with mentions as links,
// through the notes' sanitiser and mention rules; null when the entry is empty.
func TestEntryParsed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	port := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Port"})
	secret := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Den", "is_private": true})
	portEntity := e.Do("GET", loc(e.Campaign, port), e.Admin, nil).Data()["entity_id"]
	denEntity := e.Do("GET", loc(e.Campaign, secret), e.Admin, nil).Data()["entity_id"]
	entry := fmt.Sprintf(`<p onclick="x()">Ships from [location:%v|the port] and [location:%v].</p>`, portEntity, denEntity)
	id := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Quay", "entry": entry})

	for _, c := range []struct {
		who, token string
		want       []string
	}{
		{"admin", e.Admin, []string{fmt.Sprintf(`href="/api/1.0/campaigns/%d/locations/%d"`, e.Campaign, port), ">the port</a>", ">Den</a>"}},
		{"member (the den is private)", e.Member, []string{">the port</a>", `entity-mention-unknown">Unknown<`}},
	} {
		t.Run(c.who, func(t *testing.T) {
			show := e.Do("GET", loc(e.Campaign, id), c.token, nil)
			list := e.Do("GET", apitest.Path(e.Campaign, "/locations?name=quay"), c.token, nil)
			if show.Status != 200 || list.Status != 200 || len(list.List()) != 1 {
				t.Fatalf("show %d, list %d %s", show.Status, list.Status, list.Raw)
			}
			for _, got := range []any{show.Data()["entry_parsed"], list.List()[0].(map[string]any)["entry_parsed"]} {
				s, _ := got.(string)
				for _, w := range c.want {
					if !strings.Contains(s, w) {
						t.Errorf("entry_parsed %q lacks %q", s, w)
					}
				}
				if strings.Contains(s, "onclick") || (c.token != e.Admin && strings.Contains(s, "Den")) {
					t.Errorf("entry_parsed %q shows what it must not", s)
				}
			}
		})
	}
	if p := e.Do("GET", loc(e.Campaign, port), e.Admin, nil).Data(); p["entry_parsed"] != nil {
		t.Errorf("entry_parsed of an empty entry = %v, want null", p["entry_parsed"])
	}
	// No mention, no extra read: a show stays the access read and one GetItem.
	plain := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Plain", "entry": "<p>Just text</p>"})
	e.Counter.Reset()
	if r := e.Do("GET", loc(e.Campaign, plain), e.Admin, nil); r.Data()["entry_parsed"] != "<p>Just text</p>" || e.Counter.N() > 2 {
		t.Errorf("plain entry: %v after %d calls", r.Data()["entry_parsed"], e.Counter.N())
	}
}
