package calengine

import (
	"encoding/json"
	"html"
	"strconv"
	"strings"
)

// Fantasy-Calendar's events (DESIGN.md section 5, "Importing Fantasy-Calendar's events"): an
// event is a list of conditions on each day (month is X and day is Y, every nth year, the
// second Tuesday, a moon phase), not a date. The importer reads the condition lists that are
// one of Lorekeep's recurrences (a date, yearly, monthly, every N days/months/years, the Nth
// weekday of a month, a moon phase) into reminders for the calendar's own entity; every other
// event is a warning naming it.

// MaxImportEvents bounds the events one import reads (each becomes a reminder, written with the
// calendar): an export with more is refused, naming static_data.event_data.events.
const MaxImportEvents = 100

// ImportedEvent is a Fantasy-Calendar event as a reminder on the calendar's entity.
type ImportedEvent struct {
	Name     string
	Comment  string // the event's description (HTML, sanitised by the writer)
	Category string // its category's name, "" for none
	Colour   string // a #hex colour: the event's, else its category's
	Start    Date
	Length   int
	// Recurrence (Kanka's) or Rule (Lorekeep's), at most one; RecurringUntil the last year.
	Recurrence     Recurrence
	Rule           *Rule
	RecurringUntil *int64
	Hidden         bool // settings.hide: shown to the calendar's editors only (private)
}

type fcEvent struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Category    json.RawMessage `json:"event_category_id"`
	Data        struct {
		HasDuration   bool     `json:"has_duration"`
		Duration      fcNumber `json:"duration"`
		LimitedRepeat bool     `json:"limited_repeat"`
		RepeatNum     fcNumber `json:"limited_repeat_num"`
		Conditions    []any    `json:"conditions"`
	} `json:"data"`
	Settings struct {
		Color string `json:"color"`
		Hide  bool   `json:"hide"`
	} `json:"settings"`
	// Lorekeep's own (fantasy_export_events.go): the reminder exactly, beside the conditions
	// Fantasy-Calendar reads.
	Lorekeep *fcLorekeepEvent `json:"lorekeep"`
}

type fcCategory struct {
	ID       json.RawMessage `json:"id"`
	Name     string          `json:"name"`
	Settings struct {
		Color string `json:"color"`
		Hide  bool   `json:"hide"`
	} `json:"event_settings"`
}

// fcColours are Fantasy-Calendar's event colours, as hex.
var fcColours = map[string]string{
	"dark-solid": "#444444", "red": "#f44336", "pink": "#e91e63", "purple": "#9c27b0", "deep-purple": "#673ab7",
	"blue": "#2196f3", "light-blue": "#03a9f4", "cyan": "#00bcd4", "teal": "#009688", "green": "#4caf50",
	"light-green": "#8bc34a", "lime": "#cddc39", "yellow": "#ffeb3b", "orange": "#ff9800", "blue-grey": "#607d8b",
}

// fcCond is one condition: its type ("Month"), its index in Fantasy-Calendar's
// condition_mapping list for the type ("0": is exactly) and its values.
type fcCond struct {
	typ, idx string
	vals     []string
}

// fcConditions reads a flat list of conditions joined by "&&"; ok is false for anything else
// (groups, "||", "NAND", a count of conditions).
func fcConditions(raw []any) (map[string][]string, bool) {
	out := map[string][]string{}
	for i, c := range raw {
		parts, isList := c.([]any)
		if !isList || len(parts) == 0 {
			return nil, false
		}
		if i%2 == 1 { // an operator between two conditions
			if op, _ := parts[0].(string); len(parts) != 1 || op != "&&" {
				return nil, false
			}
			continue
		}
		if len(parts) != 3 {
			return nil, false
		}
		typ, ok1 := parts[0].(string)
		idx := scalarText(parts[1])
		vals, ok2 := parts[2].([]any)
		if !ok1 || idx == "" || !ok2 {
			return nil, false
		}
		key := typ + "/" + idx
		if _, dup := out[key]; dup {
			return nil, false
		}
		for _, v := range vals {
			out[key] = append(out[key], scalarText(v))
		}
		if out[key] == nil {
			out[key] = []string{}
		}
	}
	return out, len(raw)%2 == 1
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	return ""
}

// fcInts reads n whole numbers from vals.
func fcInts(vals []string, n int) ([]int64, bool) {
	if len(vals) < n {
		return nil, false
	}
	out := make([]int64, n)
	for i := range n {
		v, err := strconv.ParseInt(vals[i], 10, 64)
		if err != nil || v < -1<<52 || v > 1<<52 {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// readEvents reads the export's events and categories into out.Events (the calendar, c, is
// built). It reports a problem only for more events than MaxImportEvents; an event it cannot
// express is a warning naming it.
func readEvents(c *Calendar, events, categories []json.RawMessage, field string, out *Import, add func(field, msg string)) {
	if len(events) > MaxImportEvents {
		add(field, "The events must not have more than "+strconv.Itoa(MaxImportEvents)+" items.")
		return
	}
	cats := make([]fcCategory, 0, len(categories))
	for _, raw := range categories {
		var cat fcCategory
		_ = json.Unmarshal(raw, &cat) // a malformed category is none
		cats = append(cats, cat)
	}
	for i, raw := range events {
		var ev fcEvent
		name := "event " + strconv.Itoa(i+1)
		if err := json.Unmarshal(raw, &ev); err != nil {
			out.Warnings = append(out.Warnings, "Event "+strconv.Itoa(i+1)+" is not an event object; it is not imported.")
			continue
		}
		if n := strings.TrimSpace(html.UnescapeString(ev.Name)); n != "" {
			name = n
		}
		im, why := ImportedEvent{}, ""
		if ev.Lorekeep != nil {
			im, why = fcLorekeepEventOf(c, ev)
		} else {
			im, why = fcEventOf(c, ev, out.Definition.SkipYearZero)
		}
		if why != "" {
			out.Warnings = append(out.Warnings, "Event "+strconv.Quote(name)+" is not imported: "+why+".")
			continue
		}
		im.Name, im.Comment = name, ev.Description
		if cat, ok := fcCategoryOf(ev.Category, cats); ok {
			im.Category = strings.TrimSpace(html.UnescapeString(cat.Name))
			if ev.Settings.Color == "" {
				ev.Settings.Color = cat.Settings.Color
			}
			im.Hidden = im.Hidden || cat.Settings.Hide
		}
		if ev.Lorekeep == nil { // Lorekeep's own part holds the colour exactly
			im.Colour = fcColours[strings.ToLower(strings.TrimSpace(ev.Settings.Color))]
		}
		im.Hidden = im.Hidden || ev.Settings.Hide
		if r := im.Rule; r != nil && r.Unit == UnitMoon && phaseSpansDays(c, r.MoonID) {
			out.Warnings = append(out.Warnings, "Event "+strconv.Quote(name)+": Fantasy-Calendar shows it on every day of the moon's phase; it is imported on the day the phase begins.")
		}
		out.Events = append(out.Events, im)
	}
}

// fcCategoryOf finds an event's category by its id (newer exports) or its index (older ones).
func fcCategoryOf(ref json.RawMessage, cats []fcCategory) (fcCategory, bool) {
	var v any
	if len(ref) == 0 || json.Unmarshal(ref, &v) != nil || v == nil {
		return fcCategory{}, false
	}
	key := scalarText(v)
	for _, cat := range cats {
		var id any
		if json.Unmarshal(cat.ID, &id) == nil && id != nil && scalarText(id) == key {
			return cat, true
		}
	}
	if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(cats) && len(cats[i].ID) == 0 {
		return cats[i], true
	}
	return fcCategory{}, false
}

// fcEventOf maps one event's conditions onto a date and a recurrence, or says why it cannot.
func fcEventOf(c *Calendar, ev fcEvent, skipZero bool) (ImportedEvent, string) {
	im := ImportedEvent{Length: 1}
	if ev.Data.HasDuration {
		n, ok := ev.Data.Duration.integer()
		if !ok || n < 1 || n > MaxImportEventLength {
			return im, "its duration is not a whole number of days from 1 to " + strconv.Itoa(MaxImportEventLength)
		}
		im.Length = int(n)
	}
	conds, ok := fcConditions(ev.Data.Conditions)
	if !ok {
		return im, "its conditions are not one list joined by \"and\""
	}
	base := int64(1) // Fantasy-Calendar's first year: recurrences start there
	if !skipZero {
		base = 0
	}
	take := func(key string, n int) ([]int64, bool) {
		vals, ok := conds[key]
		if !ok {
			return nil, false
		}
		delete(conds, key)
		return fcInts(vals, n)
	}
	has := func(key string) bool { _, ok := conds[key]; return ok }
	// Bounds of the years: "year is or later than" starts it, "or earlier than" ends it.
	if has("Year/2") {
		v, ok := take("Year/2", 1)
		if !ok {
			return im, "its year condition is not a whole number"
		}
		base = v[0]
		if skipZero && base == 0 {
			base = 1
		}
	}
	if has("Year/3") {
		v, ok := take("Year/3", 1)
		if !ok {
			return im, "its year condition is not a whole number"
		}
		im.RecurringUntil = &v[0]
	}
	count := int64(0)
	if ev.Data.LimitedRepeat {
		n, ok := ev.Data.RepeatNum.integer()
		if !ok || n < 1 || n > MaxRuleCount {
			return im, "its limited repeats are not a whole number from 1 to " + strconv.Itoa(MaxRuleCount)
		}
		count = n
	}
	nMonths := len(c.months)
	month := func(ts int64) (int, bool) { return int(ts) + 1, ts >= 0 && ts < int64(nMonths) }
	// The first year from base whose (year - offset) is a multiple of n.
	firstYear := func(n, off int64) int64 {
		y := base + mod(off-base, n)
		if skipZero && y == 0 {
			y += n
		}
		return y
	}
	// A weekday condition's value is a name of the week, or (Fantasy-Calendar's reading of a
	// numeric value) a 0-based index into its global week.
	weekday := func(v string) (int, bool) {
		v = strings.TrimSpace(html.UnescapeString(v))
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return int(n), n >= 0 && n < int64(len(c.def.Weekdays))
		}
		for i, w := range c.def.Weekdays {
			if strings.EqualFold(w, v) {
				return i, true
			}
		}
		return 0, false
	}
	var rule *Rule
	switch {
	case has("Date/0"):
		v, ok := take("Date/0", 3)
		if !ok {
			return im, "its date is not a year, timespan and day"
		}
		m, okM := month(v[1])
		if !okM {
			return im, "its date's timespan is not a month of the calendar"
		}
		im.Start = Date{Year: v[0], Month: m, Day: int(v[2])}
	case has("Month/0") && has("Day/0"):
		ts, ok1 := take("Month/0", 1)
		d, ok2 := take("Day/0", 1)
		m, okM := 0, false
		if ok1 {
			m, okM = month(ts[0])
		}
		if !ok1 || !ok2 || !okM {
			return im, "its month or day is not one of the calendar"
		}
		im.Start = Date{Year: base, Month: m, Day: int(d[0])}
		switch {
		case has("Year/0"):
			y, ok := take("Year/0", 1)
			if !ok {
				return im, "its year is not a whole number"
			}
			im.Start.Year = y[0] // one day
		case has("Year/6"):
			nv, ok := take("Year/6", 2)
			if !ok || nv[0] < 1 || nv[0] > MaxRuleInterval {
				return im, "its year interval is not a whole number from 1 to " + strconv.Itoa(MaxRuleInterval)
			}
			im.Start.Year = firstYear(nv[0], nv[1])
			rule = &Rule{Unit: UnitYears, Interval: nv[0]}
		default:
			if count > 0 {
				rule = &Rule{Unit: UnitYears, Interval: 1}
			} else {
				im.Recurrence = Recurrence{Kind: RecurYearly}
			}
		}
	case has("Day/0"):
		d, ok := take("Day/0", 1)
		if !ok {
			return im, "its day is not a whole number"
		}
		im.Start = Date{Year: base, Month: 1, Day: int(d[0])}
		if has("Month/13") { // every nth month, counted from the first
			nv, ok := take("Month/13", 2)
			if !ok || nv[0] < 1 || nv[0] > MaxRuleInterval {
				return im, "its month interval is not a whole number from 1 to " + strconv.Itoa(MaxRuleInterval)
			}
			m, okM := month(mod(nv[1], nv[0]))
			if !okM {
				return im, "its month interval's offset is not a month of the first year"
			}
			im.Start.Month = m
			rule = &Rule{Unit: UnitMonths, Interval: nv[0]}
		} else if count > 0 {
			rule = &Rule{Unit: UnitMonths, Interval: 1}
		} else {
			im.Recurrence = Recurrence{Kind: RecurMonthly}
		}
	case has("Epoch/6"):
		nv, ok := take("Epoch/6", 2)
		if !ok || nv[0] < 1 || nv[0] > MaxRuleInterval {
			return im, "its day interval is not a whole number from 1 to " + strconv.Itoa(MaxRuleInterval)
		}
		first := c.yearStart(base).add64(mod(nv[1]-c.yearStart(base).clamp(), nv[0])).clamp()
		im.Start = c.DateOf(first)
		rule = &Rule{Unit: UnitDays, Interval: nv[0]}
	case has("Weekday/0") && (has("Weekday/8") || has("Weekday/14")):
		// The nth weekday of the month (Weekday 8: week_day_num, the weekday's count in its
		// month) or the nth before the month's end (Weekday 14: inverse_week_day_num, 1 the
		// last), among the month's days in the week.
		vals := conds["Weekday/0"]
		delete(conds, "Weekday/0")
		key, sign := "Weekday/8", int64(1)
		if has("Weekday/14") {
			key, sign = "Weekday/14", -1
		}
		n, ok := take(key, 1)
		w, okW := 0, false
		if len(vals) > 0 {
			w, okW = weekday(vals[0])
		}
		if !ok || !okW || n[0] < 1 || n[0] > MaxRuleOrdinal {
			return im, "its weekday or its number in the month is not one of the calendar"
		}
		im.Start = Date{Year: base, Month: 1, Day: 1}
		rule = &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: w, Ordinal: int(sign * n[0])}
		if has("Month/0") { // once a year: every year's months, from that month
			ts, ok := take("Month/0", 1)
			m, okM := 0, false
			if ok {
				m, okM = month(ts[0])
			}
			if !okM || !c.monthsEveryYear() {
				return im, "its month is not one of every year's"
			}
			im.Start.Month, rule.Interval = m, int64(nMonths)
		}
	case has("Moons/0"):
		v, ok := take("Moons/0", 2)
		if !ok || v[0] < 0 || v[0] >= int64(len(c.def.Moons)) {
			return im, "its moon is not one of the calendar"
		}
		mo := c.def.Moons[v[0]]
		g := int64(moonGranularity(mo))
		if len(mo.CustomCycle) > 0 || v[1] < 0 || v[1] >= g || v[1]*8%g != 0 {
			return im, "its moon phase is not one of the eight principal phases"
		}
		// Fantasy-Calendar counts phases from the new moon, Lorekeep from the full moon.
		im.Start = Date{Year: base, Month: 1, Day: 1}
		rule = &Rule{Unit: UnitMoon, Interval: 1, MoonID: mo.ID, Phase: PhaseNames[(v[1]*8/g+4)%8]}
	default:
		return im, "its conditions are not a date, a yearly or monthly day, an interval, a weekday of the month or a moon phase"
	}
	if len(conds) > 0 {
		return im, "its conditions are not a date, a yearly or monthly day, an interval, a weekday of the month or a moon phase"
	}
	if rule != nil {
		rule.Count = count
		im.Rule = rule
	} else if count > 0 && im.Recurrence.Kind == RecurNone {
		return im, "it repeats a limited number of times without recurring"
	}
	if _, err := c.DayNumber(im.Start); err != nil {
		return im, "its first day (" + im.Start.String() + ") is not a date of the calendar"
	}
	if rule != nil && len(c.CheckRule(*rule, im.Start)) > 0 {
		return im, "its recurrence is not one of the calendar"
	}
	return im, ""
}

// MaxImportEventLength bounds an imported event's duration, as the event's length is bounded.
const MaxImportEventLength = 10_000

// phaseSpansDays reports whether a phase of moon id (of its displayed phases) lasts more than a
// day: Fantasy-Calendar's moon conditions then hold on several days in a row.
func phaseSpansDays(c *Calendar, id int) bool {
	m, err := c.moon(id)
	if err != nil {
		return false
	}
	num, den, err := ParsePeriod(m.Fullmoon)
	return err == nil && num > den*int64(moonGranularity(m.Moon))
}

// monthsEveryYear reports whether every month appears every year.
func (c *Calendar) monthsEveryYear() bool {
	for _, m := range c.def.Months {
		if !MonthEveryYear(m) {
			return false
		}
	}
	return true
}
