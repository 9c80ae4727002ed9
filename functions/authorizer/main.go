// Command authorizer is the API Gateway Lambda authorizer: it turns a bearer token into a user
// id and nothing more (see package lambdaapi/authorizer).
package main

import "github.com/lorekeep/lorekeep/shared/lambdaapi/authorizer"

func main() { authorizer.Serve() }
