package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// HandlePublic registers a route outside the campaign prefix that needs no token (the entry
// point, health, the API description), e.g. HandlePublic("GET /health", h). It still gets the
// request log, CORS headers and panic recovery; GET routes serve HEAD too.
func (a *API) HandlePublic(pattern string, h http.HandlerFunc) {
	if a.public == nil {
		a.public = http.NewServeMux()
	}
	method, path, _ := strings.Cut(pattern, " ")
	if !slices.ContainsFunc(a.publicPatterns, func(p string) bool { return strings.HasSuffix(p, " "+path) }) {
		// The path with another method: a 405 naming the methods it has, like campaign routes.
		a.public.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", a.publicAllow(path))
			writeError(w, r, &apperr.Error{Code: apperr.ENotAllowed, Message: "The " + r.Method + " method is not supported for this route."})
		})
	}
	a.public.HandleFunc(method+" "+path, h)
	a.publicPatterns = append(a.publicPatterns, pattern)
}

// publicAllow is the Allow header of a public path.
func (a *API) publicAllow(path string) string {
	ms := []string{http.MethodOptions}
	for _, p := range a.publicPatterns {
		if m, pp, _ := strings.Cut(p, " "); pp == path {
			ms = append(ms, m)
			if m == http.MethodGet {
				ms = append(ms, http.MethodHead)
			}
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// isPublic reports whether a public route matches r.
func (a *API) isPublic(r *http.Request) bool {
	if a.public == nil {
		return false
	}
	_, pattern := a.public.Handler(r)
	return pattern != ""
}

// servePublic serves r with its public route (the mux sets the route's path values).
func (a *API) servePublic(w http.ResponseWriter, r *http.Request) { a.public.ServeHTTP(w, r) }

// WriteJSON writes v as the JSON body with status: the one writer, for handlers outside the
// families (public routes).
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) { writeJSON(w, r, status, v) }

// WriteError renders err as every route does.
func WriteError(w http.ResponseWriter, r *http.Request, err error) { writeError(w, r, err) }

// Route is one registered route: a method and a full path pattern.
type Route struct{ Method, Path string }

// Routes lists every route registered on the API, campaign routes and public ones, with HEAD
// beside each GET: the one list the template test derives API Gateway's routing from.
func (a *API) Routes() []Route {
	var out []Route
	for pattern, methods := range a.methods {
		for _, m := range methods {
			out = append(out, Route{m, pattern})
			if m == http.MethodGet {
				out = append(out, Route{http.MethodHead, pattern})
			}
		}
	}
	for _, p := range a.publicPatterns {
		m, path, _ := strings.Cut(p, " ")
		out = append(out, Route{m, path})
		if m == http.MethodGet {
			out = append(out, Route{http.MethodHead, path})
		}
	}
	return out
}
