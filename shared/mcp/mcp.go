// Package mcp is Lorekeep's Model Context Protocol endpoint: POST /mcp, an MCP server over
// streamable HTTP (the official Go SDK), stateless and answering JSON (no sessions, no SSE),
// so that any instance answers any request. It authenticates the bearer token as the REST API
// does (401 with WWW-Authenticate and RFC 9728 metadata at /.well-known/oauth-protected-resource)
// and serves tools that are thin calls into the REST routes of the same API, in process, for
// the caller the request authenticated: a tool can do exactly what the caller's REST requests
// could, no more (rest.go).
package mcp

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// Path is the endpoint's path; MetadataPath is its RFC 9728 protected-resource metadata (also
// served under MetadataPath+Path, where clients look first).
const (
	Path         = "/mcp"
	MetadataPath = "/.well-known/oauth-protected-resource"
)

// DefaultBudget is how long one /mcp request may run its tool's REST requests: well inside
// the Lambda's timeout (30 s) and API Gateway's (30 s). Each REST request keeps its own
// deadline (the API's); the items of a batch left when the budget is spent are answered as not
// attempted, to be sent again.
const DefaultBudget = 20 * time.Second

// Options configure the endpoint.
type Options struct {
	// Budget bounds one /mcp request's tool work (DefaultBudget when zero).
	Budget time.Duration
}

// Server is the MCP endpoint over one API.
type Server struct {
	api     *httpapi.API
	opts    Options
	server  *mcp.Server
	handler http.Handler
	modules moduleTable
	tools   []*mcp.Tool
}

// Register mounts /mcp and its metadata on api, whose routes the tools call; api must hold
// every family (families.Register) for every tool to work.
func Register(api *httpapi.API, opts Options) *Server {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	s := &Server{api: api, opts: opts, modules: newModuleTable()}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "lorekeep", Title: "Lorekeep", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools()
	s.addResources()
	s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true,
			// Lambda's adapter and lorekeep serve alike: the host is checked by the API's
			// links, not here; a browser page cannot send the bearer token it lacks.
			DisableLocalhostProtection: true})
	api.HandlePublic("POST "+Path, s.serveMCP)
	api.HandlePublic("GET "+MetadataPath, s.serveMetadata)
	api.HandlePublic("GET "+MetadataPath+Path, s.serveMetadata)
	return s
}

// serveMCP authenticates the caller, then hands the request to the SDK's handler with the
// caller in its context (every REST request of its tools runs as that caller).
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	caller, err := s.api.Authenticate(r)
	if err != nil {
		if errors.Is(err, apperr.ErrUnauthenticated) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.api.Origin(r)+MetadataPath+`"`)
		}
		httpapi.WriteError(w, r, err)
		return
	}
	telemetry.From(r.Context()).User(caller.UserID)
	// What the SDK would refuse in plain text, refused as every route refuses it.
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media != "application/json" {
		httpapi.WriteError(w, r, &apperr.Error{Code: apperr.EUnsupportedMedia, Message: "The request body must be JSON (Content-Type: application/json)."})
		return
	}
	if accept := strings.ToLower(strings.Join(r.Header.Values("Accept"), ",")); !strings.Contains(accept, "*/*") &&
		(!strings.Contains(accept, "application/json") && !strings.Contains(accept, "application/*") ||
			!strings.Contains(accept, "text/event-stream") && !strings.Contains(accept, "text/*")) {
		httpapi.WriteError(w, r, apperr.Invalid("Accept", "The Accept header must list application/json and text/event-stream."))
		return
	}
	// The public route's deadline is the API's per-request one; a tool runs several REST
	// requests, each with that deadline of its own, within the endpoint's budget. The client
	// going away still cancels it.
	parent := r.Context()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), s.opts.Budget)
	defer cancel()
	stop := context.AfterFunc(parent, func() {
		if errors.Is(parent.Err(), context.Canceled) {
			cancel()
		}
	})
	defer stop()
	ctx = httpapi.WithCaller(ctx, caller)
	ctx = withOrigin(ctx, origin{host: r.Host, remoteAddr: r.RemoteAddr, header: r.Header.Clone(),
		requestID: w.Header().Get("X-Request-Id"), seq: new(atomic.Int64)})
	s.handler.ServeHTTP(w, r.WithContext(ctx))
}

// protectedResource is RFC 9728's metadata of the endpoint: tokens are Lorekeep's own
// (`lorekeep token create`), sent in the Authorization header; no authorization server issues
// them.
type protectedResource struct {
	Resource               string   `json:"resource"`
	ResourceName           string   `json:"resource_name"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceDocumentation  string   `json:"resource_documentation"`
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	o := s.api.Origin(r)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	httpapi.WriteJSON(w, r, http.StatusOK, protectedResource{
		Resource: o + Path, ResourceName: "Lorekeep", BearerMethodsSupported: []string{"header"},
		ResourceDocumentation: o + "/docs"})
}

// instructions are the server's instructions to the assistant.
var instructions = strings.TrimSpace(`
Lorekeep holds tabletop campaigns' records (characters, locations, organisations, notes,
quests, calendars...). Start with list_campaigns, then search or list_records; read the
resource lorekeep://guide for the modules and the mention syntax ([character:12]). Entries are
read and written as Markdown unless entry_format is "html". Writes need a member's or an
admin's role; records you may not see do not exist for you. Send an idempotency_key with every
write so that sending it again never writes twice; deletes need confirm: true.`)
