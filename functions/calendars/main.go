// Command calendars is the Lambda of the calendars family (calendars, their day view and moves).
// It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() { lambdaapi.ServeFamily(calendars.Register) }
