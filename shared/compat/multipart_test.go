package compat_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// part is one part of a multipart body: a field, or a file when filename is set.
type part struct{ name, filename, content string }

func multipartBody(t *testing.T, parts ...part) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
			h.Set("Content-Type", "application/octet-stream")
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write([]byte(p.content))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), &b
}

// A text field sent as a multipart file part (curl -F entry=@notes.html, a browser's
// FormData.append("entry", blob), Python requests' files=) is the field's text, validated as
// the field is; a file that is not text is a 422 naming the field, nothing written.
func TestMultipartFilePartsAreTheFieldsText(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	host := e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Host"})
	if host.Status != 200 {
		t.Fatalf("setup: %d %s", host.Status, host.Raw)
	}
	notes := api(fmt.Sprintf("/entities/%v/entity_notes", host.Data()["entity_id"]))
	cases := []struct {
		name, path string
		parts      []part
		status     int
		want       map[string]any // fields of the stored record (read back)
		field      string         // the 422's only field
	}{
		{"a location's entry as a file", api("/locations"),
			[]part{{"name", "", "Waterdeep"}, {"entry", "entry.html", "<p>City of <b>Splendors</b></p>"}},
			200, map[string]any{"name": "Waterdeep", "entry": "<p>City of <b>Splendors</b></p>"}, ""},
		{"a location's name and type as files", api("/locations"),
			[]part{{"name", "name.txt", "Luskan"}, {"type", "blob", "City"}},
			200, map[string]any{"name": "Luskan", "type": "City", "entry": ""}, ""},
		{"a note's entry as a file", notes,
			[]part{{"name", "", "History"}, {"entry", "history.html", "<p>Founded long ago.</p>"}, {"visibility", "", "all"}},
			200, map[string]any{"name": "History", "entry": "<p>Founded long ago.</p>"}, ""},
		{"tags[] as files", api("/locations"),
			[]part{{"name", "", "Tagged"}, {"tags[]", "t1", "1"}},
			200, map[string]any{"name": "Tagged", "tags": []any{float64(1)}}, ""},
		{"an entry file that is not text", api("/locations"),
			[]part{{"name", "", "Broken"}, {"entry", "map.png", "\x89PNG\r\n\x1a\n\xff\xfe"}}, 422, nil, "entry"},
		{"an entry file past the entry's limit", api("/locations"),
			[]part{{"name", "", "Long"}, {"entry", "long.html", strings.Repeat("é", 200_001)}}, 422, nil, "entry"},
		{"a name file past the name's limit", api("/locations"),
			[]part{{"name", "n.txt", strings.Repeat("n", 192)}}, 422, nil, "name"},
	}
	e.EnsureTags(e.Campaign, 1)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.Do("GET", c.path, e.Admin, nil).Body["meta"].(map[string]any)["total"]
			ct, body := multipartBody(t, c.parts...)
			r := e.DoRaw("POST", c.path, e.Admin, ct, body)
			if r.Status != c.status {
				t.Fatalf("got %d %s, want %d", r.Status, r.Raw, c.status)
			}
			after := e.Do("GET", c.path, e.Admin, nil).Body["meta"].(map[string]any)["total"]
			if c.status != 200 {
				var keys []string
				for k := range r.Errors() {
					keys = append(keys, k)
				}
				if !slices.Equal(keys, []string{c.field}) || before != after {
					t.Fatalf("got %s (total %v -> %v), want a 422 naming only %s and nothing written", r.Raw, before, after, c.field)
				}
				return
			}
			stored := e.Do("GET", fmt.Sprintf("%s/%v", c.path, r.Data()["id"]), e.Admin, nil).Data()
			for k, v := range c.want {
				if fmt.Sprint(stored[k]) != fmt.Sprint(v) || fmt.Sprint(r.Data()[k]) != fmt.Sprint(v) {
					t.Errorf("%s: stored %v, answered %v, want %v", k, stored[k], r.Data()[k], v)
				}
			}
		})
	}
}
