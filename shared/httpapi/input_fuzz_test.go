package httpapi

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// fuzzContentTypes are the Content-Types the input fuzz target sends a body as.
var fuzzContentTypes = []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b",
	"", "text/plain", "application/vnd.api+json", "multipart/form-data", "application/json; charset=utf-8",
	"multipart/form-data; boundary=\"a b\"", "application/x-www-form-urlencoded; charset=%%%"}

// watchdog bounds one fuzz input's time when fuzzing (`go test -fuzz`; never in `make test`):
// a panic on another goroutine ends the worker, and the fuzzer keeps the running input as a
// failure. Stop it when done.
func watchdog(size int) (stop func()) {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		return func() {}
	}
	t := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("an input of %d bytes still runs after 10 s", size)) })
	return func() { t.Stop() }
}

// assertClientError fails unless err is nil or a client error: a 4xx status, and for a 422 at
// least one named field, each with a message.
func assertClientError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var de *apperr.Error
	if !errors.As(err, &de) {
		t.Fatalf("%s: %v is not a client error (it would be a 500)", what, err)
	}
	if s := statusOf[de.Code]; s < 400 || s > 499 {
		t.Fatalf("%s: %v answers %d", what, err, s)
	}
	if de.Code != apperr.EInvalid {
		return
	}
	if de.Fields == nil || de.Fields.Empty() {
		t.Fatalf("%s: a 422 naming no field: %v", what, err)
	}
	for _, f := range de.Fields.Fields() {
		if f == "" || len(de.Fields.Messages(f)) == 0 || de.Fields.Messages(f)[0] == "" {
			t.Fatalf("%s: field %q with messages %q", what, f, de.Fields.Messages(f))
		}
	}
}

// FuzzInput drives the Kanka input reader as a write does: the body (JSON, url-encoded form,
// multipart or anything else, at most MaxBodyBytes) decoded into an Input, then read by every
// record's Apply (location, calendar, note, map point, event, reminder). Properties: nothing
// panics; every failure is a client error (413, 415, or a 422 naming each failing field),
// never anything that would answer 5xx; and (when fuzzing) each input's time is bounded.
func FuzzInput(f *testing.F) {
	for _, s := range []struct {
		ct   uint8
		body string
	}{
		{0, `{"name":"x","entry":"see [location:12]","tags":[1,2],"parent_location_id":1}`},
		{0, `{"name":"c","month_name":["a","b"],"month_length":[1e9,-1],"weekday":["x"],"moon_fullmoon":["0.00000000001"]}`},
		{0, `{"name":"e","day":1,"month":1,"year":1,"length":1,"recurring_periodicity":"1_waxing_gibbous","recurring_until":-5}`},
		{0, `{"leap_days":[{"month":1,"interval":"9223372036854775807,!2,+1"}],"eras":[{"name":"E","year":1e300}]}`},
		{0, `{"name":"p","visibility_id":"5","settings":{"collapsed":"x"},"position":1e99}`},
		{0, "{\"name\":\"bad\xff\",\"month_name\":[\"a\\ud800\",\"b\\ud83d\\ude00\"]}"},
		{0, `{"a":1}{"b":2}`},
		{0, `[1,2]`},
		{1, "name=n&entry=%3Cscript%3E&settings[collapsed]=1&visibility_id=9&tags[]=1&tags[x]=2"},
		{1, "month_name[1]=b&month_name[0]=a&month_length[]=3&a[b][c][d][e][f][g][h][i][j]=1&%zz=1"},
		{2, "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nZ\r\n--b\r\nContent-Disposition: form-data; name=\"entry\"\r\n\r\nx [location:1]\r\n--b--\r\n"},
		{2, "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\ndata\r\n--b--\r\n"},
		{3, `{"name":"no content type"}`},
		{3, "\x00\xff{"},
		{4, "name=plain"},
		{6, "--b--"},
		{9, "name=x"},
	} {
		f.Add(s.ct, []byte(s.body))
	}
	admin := domain.Access{UserID: 1, CampaignID: 7, Role: domain.RoleAdmin, Boost: domain.BoostSuperboosted}
	member := domain.Access{UserID: 5, CampaignID: 7, Role: domain.RoleMember}
	entity := &domain.Entity{ID: 3, CampaignID: 7, Type: "calendar", ChildID: 4, Name: "C"}
	f.Fuzz(func(t *testing.T, ct uint8, body []byte) {
		defer watchdog(len(body))()
		req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		if c := fuzzContentTypes[int(ct)%len(fuzzContentTypes)]; c != "" {
			req.Header.Set("Content-Type", c)
		}
		req.Body = http.MaxBytesReader(httptest.NewRecorder(), req.Body, MaxBodyBytes)
		in, err := decodeInput(req)
		assertClientError(t, "decode", err)
		if err != nil {
			return
		}
		for _, a := range []domain.Access{admin, member} {
			assertClientError(t, "location", (&domain.Location{}).Apply(in, a))
			assertClientError(t, "calendar", (&timeline.Calendar{}).Apply(in, a))
			_, err := (&timeline.Event{}).Apply(in, entity, a)
			assertClientError(t, "event", err)
			_, err = (&timeline.Event{}).ApplyReminder(in, entity, a)
			assertClientError(t, "reminder", err)
		}
		assertClientError(t, "note", (&domain.Note{}).Apply(in))
		assertClientError(t, "map point", (&domain.MapPoint{}).Apply(in))
	})
}

// FuzzFilter drives a list's query string through the query parser and Kanka's filter
// language (domain.ReadFilter), paging and related=. Properties: nothing panics; a failure is
// a 422 naming a parameter that was sent; a filter read stays within its bounds (terms, tags,
// lower-case values of bounded length); paging stays within its bounds; a term matches any
// value without failing.
func FuzzFilter(f *testing.F) {
	for _, q := range []string{
		"name=!a;b!;!!;c&type=x;!!&tags[]=1&tags[]=2&tags_option=exclude&created_by=1&updated_by=1&is_private=0",
		"name=" + strings.Repeat("!x;", 5) + "&related=true&fields=id",
		"parent_id=1&location_id=1&related=maybe&page=-1&limit=0",
		"name=%ff&tags=1,x&page=9999999999999999999&limit=1&lastSync=2019-03-21T19:17:42.207577Z[UTC]&cursor=%00",
		"lastSync=x&tags_option=none&per_page=500&is_private=yes",
		"name=see [location:12]&type=%&name[]=a&tags[a]=1",
		"parent_location_id=9007199254740993&created_by=-1&updated_by=1e3",
		"tags=" + strings.Repeat("1,", 60),
	} {
		f.Add(q, "Port of [location:12]")
	}
	f.Fuzz(func(t *testing.T, raw, value string) {
		defer watchdog(len(raw) + len(value))()
		r := &Request{Request: httptest.NewRequest("GET", "/", nil), query: parseQuery(raw)}
		sent := r.Query()
		for _, keys := range []domain.FilterKeys{domain.FilterRecords, domain.FilterRecords | domain.FilterParent, domain.FilterChildren} {
			flt, err := r.Filter(keys)
			assertClientError(t, "filter", err)
			if err != nil {
				var de *apperr.Error
				errors.As(err, &de)
				for _, name := range de.Fields.Fields() {
					if root, _, _ := strings.Cut(name, "."); !has(sent, root) && !r.query.Has(root) {
						t.Fatalf("the error names %q, which %q does not send", name, raw)
					}
				}
				continue
			}
			for _, terms := range [][]domain.Term{flt.Name, flt.Type} {
				if len(terms) > domain.MaxFilterTerms {
					t.Fatalf("%d terms", len(terms))
				}
				for _, term := range terms {
					if len(term.Value) > domain.MaxFilterLength || term.Value != strings.ToLower(term.Value) {
						t.Fatalf("term %q", term.Value)
					}
					term.Match(value)
				}
			}
			if len(flt.Tags) > domain.MaxFilterTags {
				t.Fatalf("%d tags", len(flt.Tags))
			}
			flt.Match(domain.Filtered{Name: value, Type: value})
		}
		p, err := r.Page()
		assertClientError(t, "page", err)
		if err != nil {
			var de *apperr.Error
			errors.As(err, &de)
			for _, name := range de.Fields.Fields() {
				if !r.query.Has(name) {
					t.Fatalf("the paging error names %q, which %q does not send", name, raw)
				}
			}
		} else if p.Page < 1 || p.Page > MaxPage || p.Limit < 1 || p.Limit > domain.MaxPageSize {
			t.Fatalf("page %+v", p)
		}
		_, err = r.Related()
		assertClientError(t, "related", err)
	})
}

func has(in domain.Input, key string) bool { _, ok := in[key]; return ok }
