package transfer

import (
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// exportCalendar answers GET calendars/{id}/export: the calendar as a Fantasy-Calendar export
// (name, static_data, dynamic_data) under data, with the warnings of what Fantasy-Calendar
// itself reads differently; POST calendars/import takes it back unchanged. One read; the
// answer is bounded by the calendar's own size (HTML escaping at most sextuples a character).
func (h handlers) exportCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := calwire.Visible(r, h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if r.Access.CanWrite() != nil { // hidden moons are the editors' (calwire.HideMoons)
		shown := c.Moons[:0:0]
		for _, m := range c.Moons {
			if !m.Hidden {
				shown = append(shown, m)
			}
		}
		c.Moons = shown
	}
	eng, err := c.Engine()
	if err != nil {
		return httpapi.Reply{}, err
	}
	ex, err := eng.ExportFantasyCalendar(c.Name, c.Date, c.Time)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if k := c.Climate; k != nil {
		names := make([]string, len(c.Seasons))
		for i, s := range c.Seasons {
			names[i] = s.Name
		}
		if ex.StaticData, ex.DynamicData, err = withClimate(ex.StaticData, ex.DynamicData, *k, names); err != nil {
			return httpapi.Reply{}, err
		}
	}
	return httpapi.One(ex), nil
}
