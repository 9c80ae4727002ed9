package gcpolicy

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestForLambda(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	cases := []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"lambda", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256"}, Percent, 192 << 20},
		{"operator's GOGC wins", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024", "GOGC": "50"}, 100, 768 << 20},
		{"operator's GOMEMLIMIT wins", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024", "GOMEMLIMIT": "100MiB"}, Percent, math.MaxInt64},
		{"not on Lambda", map[string]string{}, 100, math.MaxInt64},
		{"bad memory size", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "lots"}, 100, math.MaxInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			ForLambda(func(k string) string { return c.env[k] })
			if got := debug.SetGCPercent(100); got != c.wantPercent {
				t.Errorf("GOGC = %d, want %d", got, c.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
				t.Errorf("memory limit = %d, want %d", got, c.wantLimit)
			}
		})
	}
}

func TestApplyRestores(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	restore := Apply(256)
	if got := debug.SetMemoryLimit(-1); got != 192<<20 {
		t.Errorf("memory limit under Apply = %d, want %d", got, 192<<20)
	}
	restore()
	if got, lim := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != 100 || lim != math.MaxInt64 {
		t.Errorf("after restore: GOGC %d, limit %d; want 100, unlimited", got, lim)
	}
}
