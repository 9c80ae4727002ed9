package calengine

import "strconv"

// Eras starting within their year (DESIGN.md section 5, "Calendar structure"): an era's Month
// and Day place its first day; dates before it in that year belong to the era before. Years
// keep their length: Fantasy-Calendar's "ends year" is not modelled (the importer warns).

// eraProblems checks where the eras start within their years.
func eraProblems(def Definition) []Problem {
	var probs []Problem
	for i, e := range def.Eras {
		at := "eras." + strconv.Itoa(i) + "."
		switch {
		case e.Month == 0 && e.Day != 0:
			probs = append(probs, Problem{at + "month", "The month is required when the day is present."})
		case e.Month < 0 || e.Month > len(def.Months):
			probs = append(probs, Problem{at + "month", "The month must be a month of the calendar (1 to " + strconv.Itoa(len(def.Months)) + ")."})
		case e.Month > 0 && (e.Day < 1 || e.Day > def.Months[e.Month-1].Length):
			probs = append(probs, Problem{at + "day", "The day must be a day of the era's month (1 to " + strconv.Itoa(def.Months[e.Month-1].Length) + ")."})
		}
	}
	return probs
}

// EraAtDate is EraAt on the calendar's eras.
func (c *Calendar) EraAtDate(d Date) (Era, int64, bool) { return EraAt(c.eras, c.skipZero, d) }
