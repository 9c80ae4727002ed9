package calengine

import (
	"strconv"
	"strings"
)

// Bounds of year cycles.
const (
	MaxCycles          = 100
	MaxCycleNames      = 1000 // names of one cycle
	MaxCycleLength     = 1_000_000_000
	MaxCycleFormatSize = 191
)

// Cycle names the years in turn, like a zodiac: each name lasts Length years, and the names
// repeat. It is Fantasy-Calendar's year cycle: with y the year counted from 0 (year y-1 for
// y > 0 when year zero is skipped, as Fantasy-Calendar counts), the name of year y is
// Names[(floor(y/Length) + floor(Offset/Length)) mod len(Names)].
type Cycle struct {
	Length int64
	Offset int64
	Names  []string
}

func cycleProblems(cs []Cycle, format string) []Problem {
	var probs []Problem
	if len(cs) > MaxCycles {
		return []Problem{{"cycles", "The cycles must not have more than " + strconv.Itoa(MaxCycles) + " items."}}
	}
	for i, cy := range cs {
		at := "cycles." + strconv.Itoa(i)
		if cy.Length < 1 || cy.Length > MaxCycleLength {
			probs = append(probs, Problem{at + ".length", "The length must be between 1 and " + strconv.Itoa(MaxCycleLength) + " years."})
		}
		if len(cy.Names) < 1 || len(cy.Names) > MaxCycleNames {
			probs = append(probs, Problem{at + ".names", "The names must have between 1 and " + strconv.Itoa(MaxCycleNames) + " items."})
		}
	}
	if len([]rune(format)) > MaxCycleFormatSize {
		probs = append(probs, Problem{"cycle_format", "The cycle format must not be greater than " + strconv.Itoa(MaxCycleFormatSize) + " characters."})
	}
	return probs
}

// CycleIndices are, for year y, the index into each cycle's Names (nil without cycles).
func (c *Calendar) CycleIndices(y int64) []int { return CycleIndices(c.def.Cycles, c.skipZero, y) }

// CycleIndices is Calendar.CycleIndices for valid cycles, without building a calendar (a list
// page names each calendar's current year).
func CycleIndices(cycles []Cycle, skipZero bool, y int64) []int {
	if len(cycles) == 0 {
		return nil
	}
	counted := y
	if skipZero && y > 0 {
		counted--
	}
	out := make([]int, len(cycles))
	for i, cy := range cycles {
		n := int64(len(cy.Names))
		out[i] = int(mod(mod(floorDiv(counted, cy.Length), n)+mod(floorDiv(cy.Offset, cy.Length), n), n))
	}
	return out
}

// CycleNames are year y's name in each cycle (nil without cycles).
func (c *Calendar) CycleNames(y int64) []string { return cycleNames(c.def.Cycles, c.skipZero, y) }

func cycleNames(cycles []Cycle, skipZero bool, y int64) []string {
	idx := CycleIndices(cycles, skipZero, y)
	if idx == nil {
		return nil
	}
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = cycles[i].Names[k]
	}
	return out
}

// CycleText is the calendar's cycle format with {{N}} (or {{{N}}}, Mustache's unescaped form,
// or $N, older exports' form) replaced by year y's name in cycle N (1-based), as
// Fantasy-Calendar renders it; without a format, the names joined by spaces. Empty without
// cycles.
func (c *Calendar) CycleText(y int64) string {
	return CycleText(c.def.Cycles, c.def.CycleFormat, c.skipZero, y)
}

// CycleText is Calendar.CycleText for valid cycles, without building a calendar.
func CycleText(cycles []Cycle, format string, skipZero bool, y int64) string {
	names := cycleNames(cycles, skipZero, y)
	if names == nil {
		return ""
	}
	if format == "" {
		return strings.Join(names, " ")
	}
	pairs := make([]string, 0, 6*len(names))
	for i := len(names) - 1; i >= 0; i-- { // $12 before $1
		k := strconv.Itoa(i + 1)
		pairs = append(pairs, "{{{"+k+"}}}", names[i], "{{"+k+"}}", names[i], "$"+k, names[i])
	}
	return strings.NewReplacer(pairs...).Replace(format)
}
