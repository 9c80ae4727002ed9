package apidoc

import (
	_ "embed"
	"net/http"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// The docs page: Redoc's standalone bundle (its MIT licence beside it), shipped in the binary
// of whatever serves the public routes (the meta function on AWS, lorekeep serve locally), so
// the page never fetches anything from elsewhere. scripts/docs.sh vendors a new release.
var (
	//go:embed docs/redoc.standalone.js
	redocJS []byte
	//go:embed docs/REDOC-LICENSE
	redocLicense []byte
)

// DocsPath is the docs page's path.
const DocsPath = "/docs"

const docsHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lorekeep API</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="` + Path + `" hide-download-button="false"></redoc>
<script src="` + DocsPath + `/redoc.standalone.js"></script>
</body>
</html>
`

// registerDocs serves the page and its two assets without a token.
func registerDocs(api *httpapi.API) {
	serve := func(contentType, cache string, body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", cache)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			if r.Method != http.MethodHead {
				_, _ = w.Write(body)
			}
		}
	}
	page := serve("text/html; charset=utf-8", "public, max-age=300", []byte(docsHTML))
	api.HandlePublic("GET "+DocsPath, func(w http.ResponseWriter, r *http.Request) {
		// The page runs only its own bundle, and is framed by nobody.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'")
		page(w, r)
	})
	api.HandlePublic("GET "+DocsPath+"/redoc.standalone.js", serve("text/javascript; charset=utf-8", "public, max-age=86400", redocJS))
	api.HandlePublic("GET "+DocsPath+"/REDOC-LICENSE", serve("text/plain; charset=utf-8", "public, max-age=86400", redocLicense))
}
