package httpapi

import (
	"net/http"
	"strings"
)

// HandlePublic registers a route outside the campaign prefix that needs no token (the entry
// point, health, the API description), e.g. HandlePublic("GET /health", h). It still gets the
// request log, CORS headers and panic recovery; GET routes serve HEAD too.
func (a *API) HandlePublic(pattern string, h http.HandlerFunc) {
	if a.public == nil {
		a.public = http.NewServeMux()
	}
	a.public.HandleFunc(pattern, h)
	a.publicPatterns = append(a.publicPatterns, pattern)
}

// isPublic reports whether a public route matches r.
func (a *API) isPublic(r *http.Request) bool {
	if a.public == nil {
		return false
	}
	_, pattern := a.public.Handler(r)
	return pattern != ""
}

// servePublic serves r with its public route.
func (a *API) servePublic(w http.ResponseWriter, r *http.Request) {
	h, _ := a.public.Handler(r)
	h.ServeHTTP(w, r)
}

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
