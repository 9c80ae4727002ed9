// Command mcp is the Lambda of the MCP endpoint (/mcp and its RFC 9728 metadata). Its tools
// call the REST routes in process, so it mounts every family as lorekeep serve does; API
// Gateway routes only /mcp and the metadata here. Those routes skip the authorizer (API
// Gateway would answer a missing token with a 401 without WWW-Authenticate, which MCP clients
// need), so the function checks the bearer token against the token table itself, exactly as
// the authorizer does (token.Authenticate). It wires everything once at cold start.
package main

import (
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/mcp"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStartWith(kinds.OpenFromEnv, func(o *httpapi.Options, st *store.Store) {
		o.Identify = httpapi.BearerAuth(st.Tokens(), time.Now)
		o.FieldSet = httpapi.BearerFieldSet
	})
	families.Register(api, st)
	mcp.Register(api, mcp.Options{})
	lambdaapi.Start(api)
}
