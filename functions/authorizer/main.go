// Command authorizer is the API Gateway Lambda authorizer: it turns a bearer token into a user
// id and nothing more (see package authorizer).
package main

import "github.com/lorekeep/lorekeep/shared/authorizer"

func main() { authorizer.Serve() }
