package deploy_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// codeRoutes is every route the code serves, with the function that serves it: each family's
// routes from its Register, the public routes from apidoc. HEAD is listed beside every GET.
func codeRoutes(t testing.TB) map[route]string {
	t.Helper()
	out := map[route]string{}
	add := func(fn string, api *httpapi.API) {
		for _, r := range api.Routes() {
			k := route{r.Method, strings.ReplaceAll(r.Path, "{$}", "")}
			if prev, dup := out[k]; dup && prev != fn {
				t.Errorf("%s is registered by %s and %s", k, prev, fn)
			}
			out[k] = fn
		}
	}
	for fn, register := range familyRegisters {
		api := httpapi.New(httpapi.Options{})
		register(api, nil)
		add(fn, api)
	}
	add("MetaFunction", metaAPI())
	add("McpFunction", mcpRoutesAPI())
	return out
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// concrete is a path that matches pattern ({x} becomes 1).
func concrete(pattern string) string { return pathParam.ReplaceAllString(pattern, "1") }

// selectRoute is API Gateway's choice among the template's routes for a request: routes
// without a greedy variable before greedy ones, then more literal segments, then an exact
// method before ANY.
func selectRoute(routes map[route]string, method, path string) (route, bool) {
	var best route
	var bestRank [3]int
	found := false
	for r := range routes {
		if r.method != "ANY" && r.method != method {
			continue
		}
		if _, ok := matchPath(r.path, path); !ok && !(r.path == "/" && path == "/") {
			continue
		}
		rank := [3]int{1, 0, 0}
		for _, seg := range strings.Split(r.path, "/") {
			switch {
			case strings.HasSuffix(seg, "+}"):
				rank[0] = 0
			case !strings.HasPrefix(seg, "{"):
				rank[1]++
			}
		}
		if r.method != "ANY" {
			rank[2] = 1
		}
		if !found || rank[0] > bestRank[0] || rank[0] == bestRank[0] && (rank[1] > bestRank[1] || rank[1] == bestRank[1] && rank[2] > bestRank[2]) {
			best, bestRank, found = r, rank, true
		}
	}
	return best, found
}

// The template's routes are derived from the code: every route a family registers reaches that
// family's function on API Gateway, with any method (so 405 with Allow is the function's), and
// every route of the template serves some route of the code.
func TestTemplateRoutesReachTheirFunctions(t *testing.T) {
	tpl := loadTemplate(t).httpAPIRoutes(t)
	used := map[route]bool{}
	for r, fn := range codeRoutes(t) {
		for _, method := range []string{r.method, http.MethodDelete, http.MethodOptions} {
			path := concrete(r.path)
			got, ok := selectRoute(tpl, method, path)
			switch {
			case !ok:
				t.Errorf("%s %s (%s's route %s) reaches no route of template.yaml", method, path, fn, r)
			case tpl[got] != fn:
				t.Errorf("%s %s (%s's route %s) reaches %s through %s", method, path, fn, r, tpl[got], got)
			default:
				used[got] = true
			}
		}
	}
	for r, fn := range tpl {
		if !used[r] {
			t.Errorf("template.yaml routes %s to %s, which serves no route there", r, fn)
		}
	}
}

func TestSelectRouteIsAPIGatewaysChoice(t *testing.T) {
	routes := map[route]string{
		{"ANY", "/a/{id}"}:         "var",
		{"ANY", "/a/{proxy+}"}:     "greedy",
		{"GET", "/a/b"}:            "exact",
		{"ANY", "/a/b"}:            "any",
		{"ANY", "/a/{id}/c"}:       "deeper",
		{"ANY", "/x"}:              "x",
		{"ANY", "/x/{proxy+}"}:     "xs",
		{"ANY", "/health"}:         "health",
		{"ANY", "/"}:               "root",
		{"POST", "/only/{proxy+}"}: "post",
	}
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/a/b", "exact"}, {"PUT", "/a/b", "any"}, {"GET", "/a/1", "var"}, {"GET", "/a/1/c", "deeper"},
		{"GET", "/a/1/d", "greedy"}, {"GET", "/x", "x"}, {"GET", "/x/1/2", "xs"}, {"GET", "/", "root"}, {"GET", "/only/1", ""},
	} {
		r, ok := selectRoute(routes, c.method, c.path)
		if got := routes[r]; !ok && c.want != "" || ok && got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
