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
	return json.Marshal(out)
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
