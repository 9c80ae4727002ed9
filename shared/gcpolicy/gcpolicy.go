// Package gcpolicy sets the Go garbage collector for a Lambda function's fixed memory.
//
// A warm function's live heap is a few megabytes (the wiring, the SDK's clients, one request),
// so the default GOGC=100 collects after every few megabytes allocated: every few dozen list
// pages. Profiled under load, marking and sweeping were a third of a read's CPU. A function's
// memory is its own and fixed, so the heap may grow to a share of it between collections:
// GOGC=400 (a heap goal of five times the live heap) with a soft limit at three quarters of the
// function's memory, near which the collector works harder instead of letting a burst be
// killed for running out of memory.
package gcpolicy

import (
	"runtime/debug"
	"strconv"
)

const (
	// Percent is the collector's GOGC on Lambda.
	Percent = 400
	// LimitShare is the share of the function's memory the heap is kept under.
	LimitShare = 0.75
)

// ForLambda applies the policy for the memory Lambda gives the function
// (AWS_LAMBDA_FUNCTION_MEMORY_SIZE, in MB). An operator's GOGC or GOMEMLIMIT in the
// function's environment wins; outside Lambda (no memory size) nothing changes.
func ForLambda(getenv func(string) string) {
	mb, err := strconv.Atoi(getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"))
	if err != nil || mb <= 0 {
		return
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Limit(mb))
	}
}

// Limit is the soft heap limit, in bytes, for a function of memoryMB megabytes.
func Limit(memoryMB int) int64 { return int64(float64(memoryMB) * LimitShare * (1 << 20)) }

// Apply sets the policy for a function of memoryMB megabytes whatever the environment (the
// benchmarks measure the read path as it runs on Lambda) and returns what undoes it.
func Apply(memoryMB int) (restore func()) {
	percent := debug.SetGCPercent(Percent)
	limit := debug.SetMemoryLimit(Limit(memoryMB))
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
