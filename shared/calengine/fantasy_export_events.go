package calengine

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

// The export's events (DESIGN.md section 5, "Export"): a calendar's reminders are written as
// Fantasy-Calendar events, beside static_data as Fantasy-Calendar's own exports carry them
// (events, categories), so that import(export(c)) keeps them and Fantasy-Calendar shows them.
// Each event's conditions are the ones Fantasy-Calendar reads for its date and recurrence (the
// forms the importer maps back); what they cannot say exactly travels in the event's own
// "lorekeep" object, which Fantasy-Calendar ignores and the importer reads first: the start,
// the periodicity or rule, the last year and the colour.

// fcLorekeepEvent is an exported event's own part: the reminder as Lorekeep holds it.
type fcLorekeepEvent struct {
	Start       string `json:"start"`                 // Y-M-D
	Periodicity string `json:"periodicity,omitempty"` // Kanka's recurring_periodicity
	Rule        string `json:"rule,omitempty"`        // Rule.String()
	Until       *int64 `json:"until,omitempty"`       // recurring_until
	Colour      string `json:"colour,omitempty"`
}

// eventColour is the colour an event may carry (hex, or a name): as the reminders' rule.
var eventColour = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-z][a-z-]{0,31})$`)

// fcLorekeepEventOf reads an event by its own part; why says what is wrong with it.
func fcLorekeepEventOf(c *Calendar, ev fcEvent) (ImportedEvent, string) {
	lk := ev.Lorekeep
	im := ImportedEvent{Length: 1, RecurringUntil: lk.Until}
	if ev.Data.HasDuration {
		n, ok := ev.Data.Duration.integer()
		if !ok || n < 1 || n > MaxImportEventLength {
			return im, "its duration is not a whole number of days from 1 to " + strconv.Itoa(MaxImportEventLength)
		}
		im.Length = int(n)
	}
	start, err := ParseDate(strings.TrimSpace(lk.Start))
	if err != nil {
		return im, "its lorekeep.start is not a date"
	}
	if _, err := c.DayNumber(start); err != nil {
		return im, "its first day (" + start.String() + ") is not a date of the calendar"
	}
	im.Start = start
	if im.Recurrence, err = ParsePeriodicity(lk.Periodicity); err != nil || c.CheckRecurrence(im.Recurrence) != nil {
		return im, "its lorekeep.periodicity is not one of the calendar"
	}
	if lk.Rule != "" {
		r, err := ParseRule(lk.Rule)
		if err != nil || im.Recurrence.Kind != RecurNone || len(c.CheckRule(r, start)) > 0 {
			return im, "its lorekeep.rule is not a recurrence of the calendar"
		}
		im.Rule = &r
	}
	if col := strings.TrimSpace(lk.Colour); eventColour.MatchString(col) {
		im.Colour = col
	}
	return im, ""
}

// fcColourNames are Fantasy-Calendar's event colours as it spells them, by hex.
var fcColourNames = func() map[string]string {
	out := make(map[string]string, len(fcColours))
	for name, hex := range fcColours {
		parts := strings.Split(name, "-")
		for i, p := range parts {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
		out[hex] = strings.Join(parts, "-")
	}
	return out
}()

// fcSlugFrom and fcSlugTo are the letters Fantasy-Calendar's slugify replaces, one for one.
const (
	fcSlugFrom = "àáäâãåăæąçćčđďèéěėëêęğǵḧìíïîįłḿǹńňñòóöôœøṕŕřßşśšșťțùúüûǘůűūųẃẍÿýźžż·/_,:;"
	fcSlugTo   = "aaaaaaaaacccddeeeeeeegghiiiiilmnnnnooooooprrsssssttuuuuuuuuuwxyyzzz------"
)

var fcSlugLetters = func() map[rune]rune {
	from, to := []rune(fcSlugFrom), []rune(fcSlugTo)
	out := make(map[rune]rune, len(from))
	for i, r := range from {
		out[r] = to[i]
	}
	return out
}()

// fcSlug is a category's id as Fantasy-Calendar's importer computes it from the name (its
// slugify), so that an event's event_category_id finds its category there.
func fcSlug(name string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' {
			if !space {
				b.WriteByte('-')
			}
			space = true
			continue
		}
		space = false
		if t, ok := fcSlugLetters[r]; ok {
			r = t
		}
		switch {
		case r == '&':
			b.WriteString("-and-")
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	s := b.String()
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return strings.Trim(s, "-")
}

// splitCategory takes the category paragraph the import writes first in a reminder's comment
// ("<p>Category: Holiday</p>") off the comment: the category's name and the rest.
func splitCategory(comment string) (string, string) {
	const open = "<p>Category: "
	if !strings.HasPrefix(comment, open) {
		return "", comment
	}
	name, rest, ok := strings.Cut(comment[len(open):], "</p>")
	if !ok || strings.Contains(name, "<") {
		return "", comment
	}
	return strings.TrimSpace(html.UnescapeString(name)), rest
}

// exportEvents writes evs (the calendar's reminders) as Fantasy-Calendar events and the
// categories they name; warn names what Fantasy-Calendar itself reads differently.
func (c *Calendar) exportEvents(evs []ImportedEvent, warn func(string)) (events, categories []any) {
	events, categories = []any{}, []any{}
	base := int64(0) // Fantasy-Calendar's first year: its recurrences start there
	if c.skipZero {
		base = 1
	}
	slugs := map[string]bool{}
	for _, ev := range evs {
		label := strconv.Quote(ev.Name)
		lk := &fcLorekeepEvent{Start: ev.Start.String(), Until: ev.RecurringUntil}
		if ev.Rule != nil {
			lk.Rule = ev.Rule.String()
		} else {
			lk.Periodicity = ev.Recurrence.Periodicity()
		}
		conds, note := c.fcConditionsOf(ev, base)
		if note != "" {
			warn("Event " + label + ": " + note)
		}
		color := "Dark-Solid" // Fantasy-Calendar's default
		lk.Colour = ev.Colour
		if ev.Colour != "" {
			if name, ok := fcColourNames[strings.ToLower(ev.Colour)]; ok {
				color = name
			} else if _, ok := fcColours[strings.ToLower(ev.Colour)]; ok {
				color = fcColourNames[fcColours[strings.ToLower(ev.Colour)]]
			} else {
				warn("Event " + label + ": its colour " + ev.Colour + " is none of Fantasy-Calendar's; it shows Dark-Solid there.")
			}
		}
		category, description := ev.Category, ev.Comment
		if category == "" {
			category, description = splitCategory(ev.Comment)
		}
		catID := any(-1)
		if slug := fcSlug(category); category != "" && slug != "" {
			catID = slug
			if !slugs[slug] {
				slugs[slug] = true
				categories = append(categories, map[string]any{
					"id": slug, "name": html.EscapeString(category),
					"category_settings": map[string]any{"hide": false, "player_usable": false},
					"event_settings":    map[string]any{"color": "Dark-Solid", "text": "text", "hide": false, "print": false},
				})
			}
		}
		count := int64(0)
		if ev.Rule != nil {
			count = ev.Rule.Count
		}
		events = append(events, map[string]any{
			"name": html.EscapeString(ev.Name), "description": description, "event_category_id": catID,
			"data": map[string]any{
				"has_duration": ev.Length > 1, "duration": ev.Length, "show_first_last": false,
				"limited_repeat": count > 0, "limited_repeat_num": count,
				"conditions": conds, "connected_events": []any{}, "date": []any{},
			},
			"settings": map[string]any{"color": color, "text": "text", "hide": ev.Hidden, "hide_full": false, "print": false},
			"lorekeep": lk,
		})
	}
	return events, categories
}

// Notes on what Fantasy-Calendar reads of an exported event's conditions.
const (
	noteFirstDay  = "Fantasy-Calendar has no condition for its recurrence; it shows its first day only."
	noteFromMonth = "it recurs from a month after the first; Fantasy-Calendar shows it from its first year's first month."
)

// fcConditionsOf is ev's date and recurrence as Fantasy-Calendar's conditions (base its first
// year), with a note when Fantasy-Calendar reads them otherwise ("": exactly).
func (c *Calendar) fcConditionsOf(ev ImportedEvent, base int64) (conds []any, note string) {
	s := ev.Start
	and := []any{"&&"}
	cond := func(typ, idx string, vals ...any) []any { return []any{typ, idx, vals} }
	join := func(cs ...[]any) []any {
		var out []any
		for i, x := range cs {
			if i > 0 {
				out = append(out, and)
			}
			out = append(out, x)
		}
		return out
	}
	once := join(cond("Date", "0", s.Year, s.Month-1, s.Day))
	// A recurrence starts in its start's year ("Year is or later than"), unless that is
	// Fantasy-Calendar's first, and ends with recurring_until ("Year is or earlier than").
	bounds := func(cs ...[]any) []any {
		if s.Year != base {
			cs = append([][]any{cond("Year", "2", s.Year)}, cs...)
		}
		if ev.RecurringUntil != nil {
			cs = append(cs, cond("Year", "3", *ev.RecurringUntil))
		}
		return join(cs...)
	}
	moonIndex := func(id int) int {
		for i, m := range c.def.Moons {
			if m.ID == id {
				return i
			}
		}
		return -1
	}
	moonPhase := func(id int, phase string) []any {
		i, p := moonIndex(id), 0
		if k, ok := PhaseIndex(phase); ok {
			p = k
		}
		g := moonGranularity(c.def.Moons[i])
		// Fantasy-Calendar counts phases from the new moon, in its granularity.
		return cond("Moons", "0", i, ((p+4)%8)*g/8)
	}
	weekdayName := func(w int) any {
		if w < len(c.def.Weekdays) {
			return html.EscapeString(c.def.Weekdays[w])
		}
		return strconv.Itoa(w)
	}
	nMonths := int64(len(c.def.Months))
	if r := ev.Rule; r != nil {
		switch r.Unit {
		case UnitDays:
			n, _ := c.DayNumber(s)
			return bounds(cond("Epoch", "6", strconv.FormatInt(r.Interval, 10), strconv.FormatInt(mod(n, r.Interval), 10))), ""
		case UnitMonths:
			if r.Interval == 1 {
				return bounds(cond("Day", "0", s.Day)), fromMonth(s)
			}
			ord := (c.yearOrd(s.Year)-c.yearOrd(base))*nMonths + int64(s.Month-1)
			return bounds(cond("Month", "13", strconv.FormatInt(r.Interval, 10), strconv.FormatInt(mod(ord, r.Interval), 10)), cond("Day", "0", s.Day)), ""
		case UnitYears:
			day := []any{cond("Month", "0", s.Month-1), and, cond("Day", "0", s.Day)}
			if r.Interval == 1 {
				return bounds(day[0].([]any), day[2].([]any)), ""
			}
			return bounds(cond("Year", "6", strconv.FormatInt(r.Interval, 10), strconv.FormatInt(mod(s.Year, r.Interval), 10)), day[0].([]any), day[2].([]any)), ""
		case UnitMonthWeekday:
			count := cond("Weekday", "8", r.Ordinal)
			if r.Ordinal < 0 {
				count = cond("Weekday", "14", -r.Ordinal)
			}
			switch {
			case r.Interval == 1:
				return bounds(cond("Weekday", "0", weekdayName(r.Weekday)), count), fromMonth(s)
			case r.Interval == nMonths && c.monthsEveryYear():
				return bounds(cond("Month", "0", s.Month-1), cond("Weekday", "0", weekdayName(r.Weekday)), count), ""
			}
		case UnitMoon:
			if moonIndex(r.MoonID) >= 0 && r.Interval == 1 {
				return bounds(moonPhase(r.MoonID, r.Phase)), ""
			}
		}
		return once, noteFirstDay
	}
	switch ev.Recurrence.Kind {
	case RecurNone:
		return once, ""
	case RecurYearly:
		return bounds(cond("Month", "0", s.Month-1), cond("Day", "0", s.Day)), ""
	case RecurMonthly:
		return bounds(cond("Day", "0", s.Day)), fromMonth(s)
	case RecurMoon:
		if moonIndex(ev.Recurrence.MoonID) >= 0 {
			return bounds(moonPhase(ev.Recurrence.MoonID, ev.Recurrence.Phase)), ""
		}
	}
	return once, noteFirstDay
}

// fromMonth notes a monthly recurrence starting after its year's first month.
func fromMonth(s Date) string {
	if s.Month > 1 {
		return noteFromMonth
	}
	return ""
}
