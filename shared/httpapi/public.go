package httpapi

import "net/http"

// HandlePublic registers a route outside the campaign prefix that needs no token (the entry
// point, health, the API description), e.g. HandlePublic("GET /health", h). It still gets the
// request log, CORS headers and panic recovery; GET routes serve HEAD too.
func (a *API) HandlePublic(pattern string, h http.HandlerFunc) {
	if a.public == nil {
		a.public = http.NewServeMux()
	}
	a.public.HandleFunc(pattern, h)
}

// servePublic serves r if a public route matches it.
func (a *API) servePublic(w http.ResponseWriter, r *http.Request) bool {
	if a.public == nil {
		return false
	}
	h, pattern := a.public.Handler(r)
	if pattern == "" {
		return false
	}
	h.ServeHTTP(w, r)
	return true
}

// WriteJSON writes v as the JSON body with status: the one writer, for handlers outside the
// families (public routes).
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) { writeJSON(w, r, status, v) }

// WriteError renders err as every route does.
func WriteError(w http.ResponseWriter, r *http.Request, err error) { writeError(w, r, err) }
