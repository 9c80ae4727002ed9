package main

import (
	"net/http"
	"os"
	"path/filepath"
)

// defaultDocsDir is where scripts/docs.sh puts Redoc: LOREKEEP_DOCS_DIR, else .local/docs of
// the working directory (make run starts the server at the repository's root).
func defaultDocsDir(getenv func(string) string) string {
	if d := getenv("LOREKEEP_DOCS_DIR"); d != "" {
		return d
	}
	return filepath.Join(".local", "docs")
}

// docsPage renders the OpenAPI document with Redoc, loaded from disk (no network needed).
func docsPage(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if _, err := os.Stat(filepath.Join(dir, "redoc.standalone.js")); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`<!doctype html><title>Lorekeep API</title><p>The docs renderer is not installed: run <code>scripts/docs.sh install</code> (or <code>make run</code>). The document itself is at <a href="/api/1.0/openapi.json">/api/1.0/openapi.json</a>.</p>`))
			return
		}
		_, _ = w.Write([]byte(docsHTML))
	})
}

const docsHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lorekeep API</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/api/1.0/openapi.json" hide-download-button="false"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`
