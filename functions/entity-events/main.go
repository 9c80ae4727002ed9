// Command entity-events is the Lambda of the entity-events family. It wires everything once at
// cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() { lambdaapi.ServeFamily(entityevents.Register) }
