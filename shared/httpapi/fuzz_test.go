package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// FuzzNoRequestCausesA5xx sends arbitrary bodies, content types and queries to every family's
// routes: whatever a client sends, the answer is never a 5xx (DynamoDB Local is up, so not even
// a 503). `go test` runs the seeds; `go test -fuzz` explores.
func FuzzNoRequestCausesA5xx(f *testing.F) {
	e := apitest.New(f, families.Register)
	seed := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{
		"name": "C", "month_name": []string{"A", "B"}, "month_length": []int{30, 30}, "weekday": []string{"X", "Y"},
		"moon_name": []string{"M"}, "moon_fullmoon": []string{"7.5"},
	})
	loc := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "L"})
	if seed.Status != 200 || loc.Status != 200 {
		f.Fatalf("seed: %d %d", seed.Status, loc.Status)
	}
	calEntity := seed.Data()["entity_id"]
	paths := []string{
		"/locations", "/locations/1", "/locations/1/map_points", "/locations/1/map_points/1",
		"/calendars", "/calendars/1", "/calendars/1/advance", "/calendars/1/days",
		fmt.Sprintf("/entities/%v/entity_events", calEntity), fmt.Sprintf("/entities/%v/entity_events/1", calEntity),
		fmt.Sprintf("/entities/%v/entity_notes", calEntity), fmt.Sprintf("/entities/%v/entity_notes/1", calEntity),
		fmt.Sprintf("/entities/%v/ages", calEntity),
		"/calendars/presets", "/calendars/import",
		// Kanka today
		fmt.Sprintf("/entities/%v/posts", calEntity), fmt.Sprintf("/entities/%v/posts/1", calEntity),
		fmt.Sprintf("/entities/%v/reminders", calEntity), fmt.Sprintf("/entities/%v/reminders/1", calEntity),
		"/calendars/1/reminders", "/entities", fmt.Sprintf("/entities/%v", calEntity),
	}
	methods := []string{"POST", "PATCH", "PUT", "GET", "DELETE"}
	for _, s := range []struct {
		route, method, ctype uint8
		query, body          string
	}{
		{0, 0, 0, "", `{"name":"x","tags":[1,2],"parent_location_id":1}`},
		{2, 0, 0, "", `{"name":"p","axis_x":1,"axis_y":2,"colour":"#fff000","shape":"circle","size":"small","icon":"pin"}`},
		{4, 0, 0, "", `{"name":"c","month_name":["a","b"],"month_length":[1e9,-1],"weekday":["x"],"moon_fullmoon":["0.00000000001"]}`},
		{5, 1, 0, "", `{"leap_year_month":99,"has_leap_year":"1","current_day":31,"year_number":[1],"year_name":[]}`},
		{6, 0, 0, "", `{"days":"999999999999"}`},
		{7, 3, 0, "from=-999999999-1-1&to=999999999-1-1", ""},
		{8, 0, 0, "", `{"name":"e","day":1,"month":1,"year":1,"length":1,"recurring_periodicity":"1_waxing_gibbous","recurring_until":-5}`},
		{10, 0, 1, "", "name=n&entry=%3Cscript%3E&settings[collapsed]=1&visibility_id=9"},
		{0, 3, 0, "name=%ff&tags=1,x&page=-1&limit=0&lastSync=2019-03-21T19:17:42.207577Z[UTC]&cursor=%00", ""},
		{1, 1, 2, "", "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nZ\r\n--b--\r\n"},
		{3, 2, 0, "", `{"target_entity_id":9007199254740993}`},
		{9, 1, 3, "", "\x00\xff{"},
		{5, 1, 0, "", `{"leap_days":[{"month":1,"interval":"9223372036854775807,!2,+1"},{"month":2,"day":-1}],"eras":[{"name":"E","year":1e300}],"moon_offset":["-1e3"]}`},
		{4, 0, 0, "", `{"name":"p","preset":"harptos","current_month":99,"leap_days":[{"month":1,"interval":"7,!3,2","from_year":-9007199254740991}]}`},
		{13, 3, 0, "", ""},
		{14, 0, 0, "", `{"name":"i","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"length":"1e9"},{"length":1}],"leap_days":[{"timespan":1,"interval":"!1"}]},"moons":[{"cycle":-1}]},"dynamic_data":{"timespan":-1}}`},
		{14, 0, 0, "", `{"name":"i","static_data":"{\"year_data\":{}}","dynamic_data":7}`},
		{15, 0, 0, "", `{"name":"p","visibility_id":"5","settings":[],"is_pinned":true,"position":-3}`},
		{17, 0, 1, "", "calendar_id=1&day=1&month=1&year=1&visibility_id=3&recurring_periodicity=year&type_id=5"},
		{18, 1, 0, "", `{"length":null,"name":null,"recurring_periodicity":"1_f","visibility_id":[1]}`},
		{19, 3, 0, "page=9999999&limit=1&lastSync=x", ""},
		{20, 3, 0, "types=location,,calendar&types[]=x&name=%00&tags=1,2&image=1&page=2&limit=1", ""},
		{21, 3, 0, "image=1&related=true", ""},
		// Kanka's filter language, related arrays and fields.
		{0, 3, 0, "name=!a;b!;!!;c&type=x;!!&tags[]=1&tags[]=2&tags_option=exclude&created_by=1&updated_by=1&is_private=0&related=1&fields=id,name,posts", ""},
		{4, 3, 0, "related=true&tags_option=none&fields=id&name=" + strings.Repeat("!x;", 5), ""},
		{1, 3, 0, "related=1&fields=parents,children&parent_id=1", ""},
		{0, 3, 0, "parent_id=1&location_id=1&related=maybe&fields=a,,b", ""},
		{10, 3, 0, "name=a;b&is_private=1&updated_by=x&tags_option=any", ""},
		// Mentions outside any element (issue 16 item 1) on every family, then every read of them.
		{15, 0, 0, "", `{"name":"x","entry":"see [location:12]"}`},
		{10, 0, 1, "", "name=x&entry=a%3Cbr%3E%5Blocation%3A1%5D"},
		{0, 0, 0, "", `{"name":"l","entry":"<h1>t</h1>[location:1]"}`},
		{5, 1, 0, "", `{"entry":"[location:1]<p>..</p>"}`},
		{14, 0, 0, "", `{"name":"i","entry":"x [location:1]","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"m","length":3}]}},"dynamic_data":{}}`},
		{0, 3, 0, "related=1", ""}, {4, 3, 0, "related=1", ""}, {16, 3, 0, "", ""}, {11, 3, 0, "", ""},
	} {
		f.Add(s.route, s.method, s.ctype, s.query, s.body)
	}
	types := []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b", "", "text/plain", "application/vnd.api+json"}
	f.Fuzz(func(t *testing.T, route, method, ctype uint8, query, body string) {
		path := apitest.Path(e.Campaign, paths[int(route)%len(paths)])
		if query != "" {
			path += "?" + strings.ReplaceAll(url.PathEscape(query), "%3D", "=")
		}
		req, err := http.NewRequest(methods[int(method)%len(methods)], e.Server.URL+path, strings.NewReader(body))
		if err != nil {
			return // not a request a client can send
		}
		req.Header.Set("Authorization", "Bearer "+e.Admin)
		if ct := types[int(ctype)%len(types)]; ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode >= 500 || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s (%q): %d %q", req.Method, path, body, res.StatusCode, res.Header.Get("Content-Type"))
		}
	})
}
