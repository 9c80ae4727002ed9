package calengine

import (
	"errors"
	"strconv"
	"strings"
)

// A calendar's structure beyond Kanka's: months that appear only in some years, months with
// their own week, weeks that restart with every month (DESIGN.md section 5, "Calendar
// structure").
//
// A month with an interval is a month of normal length 0 plus a rule, in the leap rules'
// grammar, that adds its days in the years it appears: year starts, day numbers and weekdays
// keep their closed forms, costing one term count per term as leap rules do. Leap rules placed
// in such a month are conjoined with its rule (their terms multiplied out), so a month that is
// absent takes its leap days with it.

// MaxMonthWeekdays bounds a month's own week, like the calendar's; MaxMonthRules the months
// with an interval (each is a rule of the year, as a leap rule is).
const (
	MaxMonthWeekdays = 100
	MaxMonthRules    = 100
)

// MonthEveryYear reports whether month m appears every year (no interval, or "1").
func MonthEveryYear(m Month) bool {
	iv := strings.TrimSpace(m.Interval)
	return iv == "" || iv == "1"
}

// localWeek reports whether month i's week restarts with it.
func localWeek(def Definition, i int) bool {
	return def.WeekRestart || len(def.Months[i].Weekdays) > 0
}

// weekOf is the week month index i counts its days in.
func (c *Calendar) weekOf(i int) []string {
	if w := c.months[i].Weekdays; len(w) > 0 {
		return w
	}
	return c.def.Weekdays
}

// structureRules checks the months' intervals and builds their rules, spending *steps.
func structureRules(def Definition, add func(field, msg string), steps *int, badLen bool) []leapCalc {
	var out []leapCalc
	var every int64
	rules := 0
	for i, m := range def.Months {
		if MonthEveryYear(m) {
			every += int64(max(m.Length, 0))
			continue
		}
		if rules++; rules > MaxMonthRules {
			add("month_interval", "At most "+strconv.Itoa(MaxMonthRules)+" months may have an interval.")
			return nil
		}
		field := "month_interval." + strconv.Itoa(i)
		ivs, err := parseInterval(m.Interval)
		if err != nil {
			add(field, "The month interval must be comma-separated whole numbers from 1 to "+strconv.Itoa(MaxLeapOffset)+
				", at most "+strconv.Itoa(MaxLeapIntervals)+", each optionally prefixed by ! (excluded) or + (ignores the offset), not all excluded.")
			continue
		}
		l := leapCalc{LeapDay: LeapDay{Month: i + 1, Interval: m.Interval, Offset: m.Offset}, index: i, monthRule: true,
			amount: int64(max(m.Length, 1)), monthIdx: i, week: m.Type == Standard}
		if l.week && !localWeek(def, i) {
			l.std = l.amount
		}
		if *steps < 0 {
			continue
		}
		if l.terms, err = expand(ivs, m.Offset, steps); errors.Is(err, errTooManyTerms) {
			add(field, termsProblem)
			continue
		} else if err != nil {
			add(field, "The intervals' combined cycle must not be longer than 10^18 years.")
			continue
		}
		if !badLen {
			out = append(out, l)
		}
	}
	if len(def.Months) >= 2 && !badLen && every < 2 {
		add("month_interval", "The months that appear every year must have at least 2 days in all.")
	}
	return out
}

// conjoinMonthRules makes each leap rule placed in a month with an interval also need the
// month: its terms become the product of its own and the month's.
func conjoinMonthRules(leaps []leapCalc, add func(field, msg string)) {
	rules := map[int]*leapCalc{}
	for i := range leaps {
		if leaps[i].monthRule {
			rules[leaps[i].monthIdx] = &leaps[i]
		}
	}
	if len(rules) == 0 {
		return
	}
	for i := range leaps {
		l := &leaps[i]
		mr := rules[l.monthIdx]
		if l.monthRule || mr == nil {
			continue
		}
		terms, err := andTerms(l.terms, mr.terms)
		if err != nil {
			field := "leap_days." + strconv.Itoa(l.index) + ".interval"
			if l.index < 0 {
				field = "leap_year_offset"
			}
			add(field, termsProblem+" Here with its month's interval.")
			continue
		}
		l.terms = terms
		if l.hasFrom {
			l.fromAt = l.countBelow(i64(l.from))
		}
	}
}

// andTerms is the product of two rules' indicators as terms: [a]·[b] = ΣΣ coef·coef'·[c ∧ c'].
func andTerms(a, b []term) ([]term, error) {
	if len(a)*len(b) > MaxLeapSteps {
		return nil, errTooManyTerms
	}
	acc := map[congruence]int64{}
	for _, x := range a {
		for _, y := range b {
			c, ok, err := crt(x.congruence, y.congruence)
			if err != nil {
				return nil, err
			}
			if ok {
				acc[c] += x.coef * y.coef
			}
		}
	}
	return sortedTerms(acc)
}

// sortedTerms lists the non-zero terms of acc, largest modulus first.
func sortedTerms(acc map[congruence]int64) ([]term, error) {
	out := make([]term, 0, len(acc))
	for c, k := range acc {
		if k != 0 {
			out = append(out, term{c, k})
		}
	}
	if len(out) > MaxLeapTerms {
		return nil, errTooManyTerms
	}
	sortTerms(out)
	return out, nil
}

// weekProblems checks the months' own weeks and the leap days' weekday names.
func weekProblems(def Definition) []Problem {
	var probs []Problem
	for i, m := range def.Months {
		if n := len(m.Weekdays); n > 0 && (n < 2 || n > MaxMonthWeekdays) {
			probs = append(probs, Problem{"month_weekdays." + strconv.Itoa(i),
				"A month's own weekdays must have from 2 to " + strconv.Itoa(MaxMonthWeekdays) + " items."})
		}
	}
	return probs
}

// MonthExists reports whether month m (1-based) appears in year y.
func (c *Calendar) MonthExists(y int64, m int) bool { return c.DaysInMonth(y, m) > 0 }

// WeekdayName is the name of d's weekday: of its month's week, or the weekday its leap day
// adds; "" for a day outside the week.
func (c *Calendar) WeekdayName(d Date) string {
	if w, ok := c.Weekday(d); ok {
		return c.weekOf(d.Month - 1)[w]
	}
	if !c.exists(d) {
		return ""
	}
	if l, _ := c.leapAt(c.activeRaw(d.Year), d); l != nil {
		return l.Weekday
	}
	return ""
}

// monthLen is the length of month index i in a year taking the rules in s: 0 for a month
// absent that year.
func (c *Calendar) monthLen(s leapSet, i int) int64 {
	if cut := c.cutOf(s); cut != nil && i >= cut.month {
		if i > cut.month {
			return 0
		}
		return int64(cut.day)
	}
	return c.cumNormal[i+1] - c.cumNormal[i] + c.extra(s, i, false)
}
