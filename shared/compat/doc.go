// Package compat holds the tests that drive Lorekeep from the outside as Kanka clients do:
// today's clients (python-kanka 2.x, the Foundry VTT importer) beside the spec's 2022 routes,
// on the same records, with every family mounted as `lorekeep serve` mounts them.
package compat
