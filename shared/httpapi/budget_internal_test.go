package httpapi

import (
	"strings"
	"testing"
)

func TestEnvelopeSizeCountsLambdaEscapes(t *testing.T) {
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
	big := strings.Repeat("<", MaxPageBytes/6/3) // a third of the budget once escaped
	rows, err := fitRows([]string{big, big, big, big})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows, %v; want 2", len(rows), err)
	}
	huge := strings.Repeat("x", MaxPageBytes+1)
	if rows, _ := fitRows([]string{huge, "next"}); len(rows) != 1 {
		t.Fatalf("a row over the budget alone: %d rows, want 1", len(rows))
	}
}
