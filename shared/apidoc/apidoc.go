// Package apidoc is Lorekeep's OpenAPI 3.1 document and the routes that need no token: the
// entry point, health, and the document itself. The document is written as one YAML file per
// family under openapi/ (so families grow their part without touching the others'), merged here
// in file name order into the one document that is served and that the tests validate every
// response against.
package apidoc

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

//go:embed openapi/*.yaml
var files embed.FS

// Path is where the document is served.
const Path = "/api/1.0/openapi.json"

var (
	once    sync.Once
	doc     []byte
	loadErr error
)

// JSON is the merged document.
func JSON() ([]byte, error) {
	once.Do(func() { doc, loadErr = merge(files) })
	return doc, loadErr
}

// merge joins the fragments: the first file gives the top level; every file adds paths,
// components and tags. A path or component defined twice is an error; keys starting with
// "x-" at a fragment's top level (YAML anchors shared within the file) are dropped.
func merge(fsys fs.FS) ([]byte, error) {
	names, err := fs.Glob(fsys, "openapi/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := map[string]any{}
	for i, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var frag map[string]any
		if err := yaml.Unmarshal(raw, &frag); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for k, v := range frag {
			switch {
			case strings.HasPrefix(k, "x-"):
			case k == "paths" || k == "webhooks":
				if err := addAll(out, k, v, name); err != nil {
					return nil, err
				}
			case k == "components":
				comps, _ := v.(map[string]any)
				for kind, defs := range comps {
					if out["components"] == nil {
						out["components"] = map[string]any{}
					}
					if err := addAll(out["components"].(map[string]any), kind, defs, name); err != nil {
						return nil, err
					}
				}
			case k == "tags":
				tags, _ := out["tags"].([]any)
				more, _ := v.([]any)
				out["tags"] = append(tags, more...)
			case i == 0:
				out[k] = v
			default:
				return nil, fmt.Errorf("%s: top-level %q belongs in the first file only", name, k)
			}
		}
	}
	shared(out)
	return json.Marshal(out)
}

// shared adds to every operation what the shared HTTP layer answers for it, written once in
// the base file rather than in each family's: each read (a GET under /api/1.0 that needs a
// token) takes If-None-Match and may answer 304 (httpapi's conditional reads); each list with
// lastSync and deleted takes removed and may answer 410; and each list's page schema (data,
// links, meta, sync) may hold removed.
func shared(doc map[string]any) {
	ref := func(to string) map[string]any { return map[string]any{"$ref": to} }
	paths, _ := doc["paths"].(map[string]any)
	var pages []any // the reads' 200 answers
	for path, item := range paths {
		op, _ := item.(map[string]any)["get"].(map[string]any)
		if op == nil || !strings.HasPrefix(path, "/api/1.0/") || path == Path {
			continue
		}
		params, _ := op["parameters"].([]any)
		responses, _ := op["responses"].(map[string]any)
		if responses == nil {
			continue
		}
		has := func(name string) bool {
			for _, p := range params {
				if m, _ := p.(map[string]any); m["$ref"] == "#/components/parameters/"+name {
					return true
				}
			}
			return false
		}
		params = append(params, ref("#/components/parameters/If-None-Match"))
		responses["304"] = ref("#/components/responses/NotModified")
		if has("lastSync") && has("deleted") {
			params = append(params, ref("#/components/parameters/removed"))
			responses["410"] = ref("#/components/responses/Resync")
		}
		op["parameters"] = params
		pages = append(pages, responses["200"])
	}
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	page := func(s any) { // s is nil for an answer that is not JSON (the month page's image)
		m, _ := s.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		if props["links"] != nil && props["meta"] != nil && props["sync"] != nil && props["data"] != nil {
			props["removed"] = ref("#/components/schemas/Removed")
		}
	}
	for _, s := range schemas {
		page(s)
	}
	// Pages whose schema is written inline in their answer (or in a shared response).
	responses, _ := comps["responses"].(map[string]any)
	for _, r := range pages {
		m, _ := r.(map[string]any)
		if to, ok := m["$ref"].(string); ok {
			m, _ = responses[strings.TrimPrefix(to, "#/components/responses/")].(map[string]any)
		}
		content, _ := m["content"].(map[string]any)
		js, _ := content["application/json"].(map[string]any)
		page(js["schema"])
	}
}

func addAll(into map[string]any, key string, v any, file string) error {
	add, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %s is not a mapping", file, key)
	}
	dst, _ := into[key].(map[string]any)
	if dst == nil {
		dst = map[string]any{}
		into[key] = dst
	}
	for k, val := range add {
		if _, dup := dst[k]; dup {
			return fmt.Errorf("%s: %s %q is defined twice", file, key, k)
		}
		dst[k] = val
	}
	return nil
}

// Register serves the document, its rendered docs page, health and the entry point without a
// token.
func Register(api *httpapi.API) {
	api.HandlePublic("GET "+Path, func(w http.ResponseWriter, r *http.Request) {
		d, err := JSON()
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		if r.Method != http.MethodHead {
			_, _ = w.Write(d)
		}
	})
	api.HandlePublic("GET /health", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
	})
	root := map[string]string{"name": "Lorekeep", "openapi": Path, "health": "/health", "docs": DocsPath}
	registerDocs(api)
	api.HandlePublic("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, r, http.StatusOK, root)
	})
}
