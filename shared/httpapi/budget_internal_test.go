package httpapi

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestEnvelopeSizeCountsLambdaEscapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int
	}{
		{`plain`, 5},
		{`"q"`, 5},
		{`a\nb`, 5},
		{`<p>&amp;</p>`, 12 + 5*5},
		{"é", 2},
		{"\u2028", 6},
	} {
		if got := envelopeSize([]byte(c.in)); got != c.want {
			t.Errorf("envelopeSize(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestFitRowsStopsAtTheBudgetKeepingOne(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("<", MaxPageBytes/6/3) // a third of the budget once escaped
	rows, err := fitRows([]string{big, big, big, big})
	if err != nil || rows.Len() != 2 {
		t.Fatalf("%d rows, %v; want 2", rows.Len(), err)
	}
	huge := strings.Repeat("x", MaxPageBytes+1)
	if rows, _ := fitRows([]string{huge, "next"}); rows.Len() != 1 {
		t.Fatalf("a row over the budget alone: %d rows, want 1", rows.Len())
	}
}

// The counting path agrees with the byte loop on random rows of the bytes that grow, multi-byte
// runes, U+2028/U+2029, U+FFFD and invalid UTF-8 (which takes the loop).
func TestEnvelopeSizeCountingIsTheByteLoop(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "Z", " ", `"`, `\`, "<", ">", "&", "é", "€", "\u2028", "\u2029", "\ufffd", "\xe2", "\xe2\x80", "\x80", "\xff", "🐉", "\\u003c"}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		b := []byte(sb.String())
		if got, want := envelopeSize(b), envelopeSizeSlow(b); got != want {
			t.Fatalf("envelopeSize(%q) = %d, the byte loop says %d", b, got, want)
		}
	}
}

// BenchmarkEnvelopeSize measures a location row's worth of JSON (4 KB, some HTML escapes).
func BenchmarkEnvelopeSize(b *testing.B) {
	row := []byte(strings.Repeat(`{"name":"Saltmarsh \u003cb\u003e","entry":"\u003cp\u003eA town & its port\u003c/p\u003e","tags":[1,2,3]},`, 40))
	b.Run("counting", func(b *testing.B) {
		for b.Loop() {
			envelopeSize(row)
		}
	})
	b.Run("byte-loop", func(b *testing.B) {
		for b.Loop() {
			envelopeSizeSlow(row)
		}
	})
}
