package calendars

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/related"
	"github.com/lorekeep/lorekeep/shared/store"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// calendarJSON is a calendar as Kanka clients read it, every field of the spec's table, plus
// Lorekeep's skip_year_zero and epochs.
type calendarJSON struct {
	ID               int64             `json:"id"`
	Name             string            `json:"name"`
	Entry            string            `json:"entry"`
	Image            string            `json:"image"`
	ImageFull        string            `json:"image_full"`
	ImageThumb       string            `json:"image_thumb"`
	HasCustomImage   bool              `json:"has_custom_image"`
	IsPrivate        bool              `json:"is_private"`
	EntityID         int64             `json:"entity_id"`
	Tags             []int64           `json:"tags"`
	EntityImageUUID  *string           `json:"entity_image_uuid"`
	EntityHeaderUUID *string           `json:"entity_header_uuid"`
	CreatedAt        domain.Time       `json:"created_at"`
	CreatedBy        int64             `json:"created_by"`
	UpdatedAt        domain.Time       `json:"updated_at"`
	UpdatedBy        int64             `json:"updated_by"`
	Type             string            `json:"type"`
	Date             string            `json:"date"`
	Parameters       *string           `json:"parameters"`
	Months           []monthJSON       `json:"months"`
	StartOffset      int               `json:"start_offset"`
	Weekdays         []string          `json:"weekdays"`
	Years            map[string]string `json:"years"`
	Seasons          []seasonJSON      `json:"seasons"`
	Moons            []moonJSON        `json:"moons"`
	Epochs           []epochJSON       `json:"epochs"`
	Suffix           string            `json:"suffix"`
	SkipYearZero     bool              `json:"skip_year_zero"`
	HasLeapYear      bool              `json:"has_leap_year"`
	LeapYearAmount   int               `json:"leap_year_amount"`
	LeapYearMonth    int               `json:"leap_year_month"`
	LeapYearOffset   int               `json:"leap_year_offset"`
	LeapYearStart    int64             `json:"leap_year_start"`
	*related.Arrays                    // ?related=1
}

type monthJSON struct {
	Name   string `json:"name"`
	Length int    `json:"length"`
	Type   string `json:"type"`
}

type seasonJSON struct {
	Name  string `json:"name"`
	Month int    `json:"month"`
	Day   int    `json:"day"`
}

type moonJSON struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Fullmoon string `json:"fullmoon"`
	Offset   int    `json:"offset"`
	Colour   string `json:"colour"`
}

type epochJSON struct {
	Name string `json:"name"`
}

func render(c *domain.Calendar) calendarJSON {
	j := calendarJSON{
		ID: c.ID, Name: c.Name, Entry: c.Entry, Image: c.ImageURL, ImageFull: c.ImageURL, ImageThumb: c.ImageURL,
		HasCustomImage: c.ImageURL != "", IsPrivate: c.IsPrivate, EntityID: c.EntityID, Tags: c.Tags,
		EntityImageUUID: optional(c.EntityImageUUID), EntityHeaderUUID: optional(c.EntityHeaderUUID),
		CreatedAt: domain.Time(c.CreatedAt), CreatedBy: c.CreatedBy, UpdatedAt: domain.Time(c.UpdatedAt), UpdatedBy: c.UpdatedBy,
		Type: c.Type, Date: c.Date.String(), StartOffset: c.StartOffset, Weekdays: c.Weekdays, Suffix: c.Suffix,
		SkipYearZero: c.SkipYearZero, HasLeapYear: c.HasLeapYear, LeapYearAmount: c.LeapYearAmount,
		LeapYearMonth: c.LeapYearMonth, LeapYearOffset: c.LeapYearOffset, LeapYearStart: c.LeapYearStart,
		Months:  make([]monthJSON, len(c.Months)),
		Years:   make(map[string]string, len(c.Years)),
		Seasons: make([]seasonJSON, len(c.Seasons)),
		Moons:   make([]moonJSON, len(c.Moons)),
		Epochs:  make([]epochJSON, len(c.Epochs)),
	}
	if j.Tags == nil {
		j.Tags = []int64{}
	}
	if j.Weekdays == nil {
		j.Weekdays = []string{}
	}
	for i, m := range c.Months {
		j.Months[i] = monthJSON{Name: m.Name, Length: m.Length, Type: string(m.Type)}
	}
	for y, n := range c.Years {
		j.Years[strconv.FormatInt(y, 10)] = n
	}
	for i, s := range c.Seasons {
		j.Seasons[i] = seasonJSON{Name: s.Name, Month: s.Month, Day: s.Day}
	}
	for i, m := range c.Moons {
		j.Moons[i] = moonJSON{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: m.Offset, Colour: m.Colour}
	}
	for i, e := range c.Epochs {
		j.Epochs[i] = epochJSON{Name: e}
	}
	return j
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// withRelated adds the related arrays to rendered calendars when the client asked for them.
func withRelated(r *httpapi.Request, st *store.Store, cs []domain.Calendar, out []calendarJSON) error {
	on, err := r.Related()
	if err != nil || !on {
		return err
	}
	subjects := make([]related.Subject, len(cs))
	for i := range cs {
		subjects[i] = related.Subject{EntityID: cs[i].EntityID}
	}
	arrays, err := related.Load(r, st, subjects)
	for i := range arrays {
		out[i].Arrays = arrays[i]
	}
	return err
}
