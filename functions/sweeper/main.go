// Command sweeper is the scheduled Lambda that finishes deletes left pending (package
// sweeper): it wires the store once at cold start; each invocation runs one sweep.
package main

import "github.com/lorekeep/lorekeep/shared/sweeper"

func main() { sweeper.Serve() }
