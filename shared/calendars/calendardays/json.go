package calendardays

import (
	"math"

	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// AppendJSON is a day's hand encoder (httpapi.JSONAppender): the day view renders up to
// MaxDays of them a request, and encoding/json's reflection was most of its own CPU (issue 20).
func (d dayJSON) AppendJSON(b []byte) ([]byte, bool) {
	if d.SeasonPart != nil && (math.IsNaN(*d.SeasonPart) || math.IsInf(*d.SeasonPart, 0)) {
		return b, false // encoding/json's error, as before
	}
	b = append(b, `{"date":`...)
	b = httpapi.AppendString(b, d.Date)
	b = append(b, `,"weekday":`...)
	b = httpapi.AppendOptString(b, d.Weekday)
	b = append(b, `,"weekday_index":`...)
	b = appendOptInt(b, d.WeekdayIndex)
	if d.IsNumbered != nil {
		b = append(b, `,"is_numbered":`...)
		b = httpapi.AppendBool(b, *d.IsNumbered)
	}
	b = append(b, `,"month_name":`...)
	b = httpapi.AppendString(b, d.MonthName)
	b = append(b, `,"is_intercalary":`...)
	b = httpapi.AppendBool(b, d.IsIntercalary)
	b = append(b, `,"is_leap_day":`...)
	b = httpapi.AppendBool(b, d.IsLeapDay)
	b = append(b, `,"leap_day_name":`...)
	b = httpapi.AppendOptString(b, d.LeapDayName)
	b = append(b, `,"era":`...)
	b = appendEra(b, d.Era)
	b = append(b, `,"season":`...)
	b = httpapi.AppendOptString(b, d.Season)
	if d.SeasonPart != nil {
		b = append(b, `,"season_progress":`...)
		b = httpapi.AppendFloat(b, *d.SeasonPart)
	}
	if d.Sunrise != nil {
		b = append(b, `,"sunrise":`...)
		b = httpapi.AppendString(b, *d.Sunrise)
	}
	if d.Sunset != nil {
		b = append(b, `,"sunset":`...)
		b = httpapi.AppendString(b, *d.Sunset)
	}
	b = append(b, `,"cycle":`...)
	b = httpapi.AppendOptString(b, d.Cycle)
	b = append(b, `,"cycle_names":`...)
	b = httpapi.AppendStrings(b, d.CycleNames)
	b = append(b, `,"moons":`...)
	if d.Moons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Moons {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.Moons[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"events":`...)
	if d.Events == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Events {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.Events[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, `,"weather":`...)
	if w := d.Weather; w == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"temperature":`...)
		b = httpapi.AppendInt(b, int64(w.Temperature))
		b = append(b, `,"precipitation":`...)
		b = httpapi.AppendBool(b, w.Precipitation)
		b = append(b, `,"intensity":`...)
		b = httpapi.AppendInt(b, int64(w.Intensity))
		b = append(b, `,"kind":`...)
		b = httpapi.AppendString(b, w.Kind)
		b = append(b, '}')
	}
	b = append(b, `,"calendar_weather":`...)
	if m := d.Manual; m == nil {
		b = append(b, "null"...)
	} else {
		b = m.AppendFields(append(b, '{'))
		b = append(b, '}')
	}
	return append(b, '}'), true
}

func (m *dayMoonJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = httpapi.AppendInt(b, int64(m.ID))
	b = append(b, `,"name":`...)
	b = httpapi.AppendString(b, m.Name)
	b = append(b, `,"phase":`...)
	b = httpapi.AppendString(b, m.Phase)
	b = append(b, `,"phases":`...)
	b = httpapi.AppendStrings(b, m.Phases)
	if m.PhaseIndex != nil {
		b = append(b, `,"phase_index":`...)
		b = httpapi.AppendInt(b, int64(*m.PhaseIndex))
	}
	if m.PhaseCount != nil {
		b = append(b, `,"phase_count":`...)
		b = httpapi.AppendInt(b, int64(*m.PhaseCount))
	}
	return append(b, '}')
}

func (e *Event) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = httpapi.AppendInt(b, e.ID)
	b = append(b, `,"entity_id":`...)
	b = httpapi.AppendInt(b, e.EntityID)
	b = append(b, `,"name":`...)
	b = httpapi.AppendString(b, e.Name)
	b = append(b, `,"colour":`...)
	b = httpapi.AppendString(b, e.Colour)
	b = append(b, `,"start":`...)
	b = httpapi.AppendString(b, e.Start)
	b = append(b, `,"end":`...)
	b = httpapi.AppendString(b, e.End)
	b = append(b, `,"time":`...)
	b = httpapi.AppendOptString(b, e.Time)
	return append(b, '}')
}

func appendEra(b []byte, e *calwire.DateEra) []byte {
	if e == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"name":`...)
	b = httpapi.AppendString(b, e.Name)
	b = append(b, `,"abbreviation":`...)
	b = httpapi.AppendString(b, e.Abbreviation)
	b = append(b, `,"year":`...)
	b = httpapi.AppendInt(b, e.Year)
	return append(b, '}')
}

func appendOptInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return httpapi.AppendInt(b, int64(*n))
}
