package calendars_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestEntryParsed: a calendar's entry_parsed (Kanka today), null when the entry is empty.
func TestEntryParsed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, plainBody("Reckoning"))
	r := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
	if r.Data()["entry_parsed"] != nil {
		t.Fatalf("entry_parsed of an empty entry = %v, want null", r.Data()["entry_parsed"])
	}
	self := r.Data()["entity_id"]
	u := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"entry": "<p>See [calendar:" + jsonOf(self) + "]</p>"})
	if s, _ := u.Data()["entry_parsed"].(string); u.Status != 200 || !strings.Contains(s, ">Reckoning</a>") {
		t.Fatalf("update: %d entry_parsed %q", u.Status, u.Data()["entry_parsed"])
	}
	l := e.Do("GET", apitest.Path(e.Campaign, "/calendars"), e.Member, nil)
	if s, _ := l.List()[0].(map[string]any)["entry_parsed"].(string); !strings.Contains(s, `class="entity-mention"`) {
		t.Errorf("listed entry_parsed %q", s)
	}
}
