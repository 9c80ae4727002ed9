package store

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/calendar"
	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	calendarPrefix    = "CALENDAR"
	calendarCounterSK = "COUNT#" + calendarPrefix
	eventPrefix       = "EVENT"
)

// calendarGSI is the GSI1 partition of the entity events that use calendar calID, wherever
// their entity is: the calendar's day view and the clean-up when it is deleted read it.
func calendarGSI(cid, calID int64) string { return campaignPK(cid) + "#CALENDAR#" + pad(calID) }

type calendarItem struct {
	PK               string            `dynamo:"pk"`
	SK               string            `dynamo:"sk"`
	ID               int64             `dynamo:"id"`
	CampaignID       int64             `dynamo:"campaign_id"`
	EntityID         int64             `dynamo:"entity_id"`
	Name             string            `dynamo:"name"`
	NameLC           string            `dynamo:"name_lc"`
	Entry            string            `dynamo:"entry,omitempty"`
	Type             string            `dynamo:"type,omitempty"`
	ImageURL         string            `dynamo:"image_url,omitempty"`
	IsPrivate        bool              `dynamo:"is_private"`
	Tags             []int64           `dynamo:"tags"`
	EntityImageUUID  string            `dynamo:"entity_image_uuid,omitempty"`
	EntityHeaderUUID string            `dynamo:"entity_header_uuid,omitempty"`
	Date             string            `dynamo:"date"`
	Months           []monthAttr       `dynamo:"months"`
	Weekdays         []string          `dynamo:"weekdays"`
	Years            map[string]string `dynamo:"years,omitempty"` // year number (decimal) -> name
	Seasons          []seasonAttr      `dynamo:"seasons,omitempty"`
	Moons            []moonAttr        `dynamo:"moons,omitempty"`
	Epochs           []string          `dynamo:"epochs,omitempty"`
	Suffix           string            `dynamo:"suffix,omitempty"`
	StartOffset      int               `dynamo:"start_offset"`
	SkipYearZero     bool              `dynamo:"skip_year_zero"`
	HasLeapYear      bool              `dynamo:"has_leap_year"`
	LeapYearAmount   int               `dynamo:"leap_year_amount"`
	LeapYearMonth    int               `dynamo:"leap_year_month"`
	LeapYearOffset   int               `dynamo:"leap_year_offset"`
	LeapYearStart    int64             `dynamo:"leap_year_start"`
	CreatedAt        string            `dynamo:"created_at"`
	UpdatedAt        string            `dynamo:"updated_at"`
	CreatedBy        int64             `dynamo:"created_by"`
	UpdatedBy        int64             `dynamo:"updated_by"`
	Version          int64             `dynamo:"version"`
}

type monthAttr struct {
	Name   string `dynamo:"name"`
	Length int    `dynamo:"length"`
	Type   string `dynamo:"type"`
}

type seasonAttr struct {
	Name  string `dynamo:"name"`
	Month int    `dynamo:"month"`
	Day   int    `dynamo:"day"`
}

type moonAttr struct {
	ID       int    `dynamo:"id"`
	Name     string `dynamo:"name"`
	Fullmoon string `dynamo:"fullmoon"` // the decimal text as sent
	Offset   int    `dynamo:"offset"`
	Colour   string `dynamo:"colour"`
}

func calendarOwner(c *domain.Calendar) owner {
	return owner{kind: calendarPrefix, entityType: "calendar", cid: c.CampaignID, id: c.ID, entityID: c.EntityID,
		name: c.Name, private: c.IsPrivate, version: c.Version, tags: c.Tags, imageURL: c.ImageURL,
		createdAt: formatTime(c.CreatedAt), updatedAt: formatTime(c.UpdatedAt), createdBy: c.CreatedBy, updatedBy: c.UpdatedBy}
}

func toCalendarItem(c *domain.Calendar) calendarItem {
	it := calendarItem{
		PK: campaignPK(c.CampaignID), SK: recordSK(calendarPrefix, c.ID),
		ID: c.ID, CampaignID: c.CampaignID, EntityID: c.EntityID,
		Name: c.Name, NameLC: strings.ToLower(c.Name), Entry: c.Entry, Type: c.Type, ImageURL: c.ImageURL,
		IsPrivate: c.IsPrivate, Tags: c.Tags, EntityImageUUID: c.EntityImageUUID, EntityHeaderUUID: c.EntityHeaderUUID,
		Date: c.Date.String(), Weekdays: c.Weekdays, Epochs: c.Epochs, Suffix: c.Suffix,
		StartOffset: c.StartOffset, SkipYearZero: c.SkipYearZero, HasLeapYear: c.HasLeapYear,
		LeapYearAmount: c.LeapYearAmount, LeapYearMonth: c.LeapYearMonth, LeapYearOffset: c.LeapYearOffset,
		LeapYearStart: c.LeapYearStart,
		CreatedAt:     formatTime(c.CreatedAt), UpdatedAt: formatTime(c.UpdatedAt),
		CreatedBy: c.CreatedBy, UpdatedBy: c.UpdatedBy, Version: c.Version,
	}
	if it.Tags == nil {
		it.Tags = []int64{}
	}
	it.Months = make([]monthAttr, len(c.Months))
	for i, m := range c.Months {
		it.Months[i] = monthAttr{Name: m.Name, Length: m.Length, Type: string(m.Type)}
	}
	if len(c.Years) > 0 {
		it.Years = make(map[string]string, len(c.Years))
		for y, n := range c.Years {
			it.Years[strconv.FormatInt(y, 10)] = n
		}
	}
	for _, s := range c.Seasons {
		it.Seasons = append(it.Seasons, seasonAttr{Name: s.Name, Month: s.Month, Day: s.Day})
	}
	for _, m := range c.Moons {
		it.Moons = append(it.Moons, moonAttr{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: m.Offset, Colour: m.Colour})
	}
	return it
}

func (it calendarItem) calendar() domain.Calendar {
	c := domain.Calendar{
		ID: it.ID, CampaignID: it.CampaignID, EntityID: it.EntityID, Name: it.Name, Entry: it.Entry, Type: it.Type,
		ImageURL: it.ImageURL, IsPrivate: it.IsPrivate, Tags: it.Tags,
		EntityImageUUID: it.EntityImageUUID, EntityHeaderUUID: it.EntityHeaderUUID,
		Weekdays: it.Weekdays, Epochs: it.Epochs, Suffix: it.Suffix, StartOffset: it.StartOffset,
		SkipYearZero: it.SkipYearZero, HasLeapYear: it.HasLeapYear, LeapYearAmount: it.LeapYearAmount,
		LeapYearMonth: it.LeapYearMonth, LeapYearOffset: it.LeapYearOffset, LeapYearStart: it.LeapYearStart,
		CreatedAt: parseTime(it.CreatedAt), UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy,
		UpdatedBy: it.UpdatedBy, Version: it.Version,
	}
	c.Date, _ = calendar.ParseDate(it.Date)
	c.Months = make([]calendar.Month, len(it.Months))
	for i, m := range it.Months {
		c.Months[i] = calendar.Month{Name: m.Name, Length: m.Length, Type: calendar.MonthType(m.Type)}
	}
	c.Years = make(map[int64]string, len(it.Years))
	for y, n := range it.Years {
		if k, err := strconv.ParseInt(y, 10, 64); err == nil {
			c.Years[k] = n
		}
	}
	for _, s := range it.Seasons {
		c.Seasons = append(c.Seasons, calendar.Season{Name: s.Name, Month: s.Month, Day: s.Day})
	}
	for _, m := range it.Moons {
		c.Moons = append(c.Moons, calendar.Moon{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: m.Offset, Colour: m.Colour})
	}
	return c
}

// GetCalendar reads one calendar of the campaign; ErrNotFound when there is none.
func (s *Store) GetCalendar(ctx context.Context, cid, id int64) (*domain.Calendar, error) {
	var it calendarItem
	err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.Equal, recordSK(calendarPrefix, id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	c := it.calendar()
	return &c, nil
}

// ListCalendars reads one page of the campaign's calendars, ordered by id.
func (s *Store) ListCalendars(ctx context.Context, cid int64, f domain.RecordFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Calendar], error) {
	l := listSpec{pk: campaignPK(cid), prefix: calendarPrefix + "#", counterSK: calendarCounterSK, hidePrivate: hidePrivate}
	l.recordFilter(f)
	page, err := listPage[calendarItem](ctx, s, l, p)
	out := domain.Page[domain.Calendar]{Total: page.Total, Next: page.Next, Items: make([]domain.Calendar, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.calendar()
	}
	return out, err
}

// CreateCalendar stores a new calendar and its entity in one transaction, with ids from the
// campaign's sequences: two round trips.
func (s *Store) CreateCalendar(ctx context.Context, c *domain.Calendar) error {
	id, entityID, err := s.ownerIDs(ctx, c.CampaignID, "calendar")
	if err != nil {
		return err
	}
	now := s.now()
	c.ID, c.EntityID, c.Version = id, entityID, 1
	c.CreatedAt, c.UpdatedAt, c.UpdatedBy = now, now, c.CreatedBy
	return s.createOwner(ctx, calendarOwner(c), toCalendarItem(c))
}

// UpdateCalendar writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (s *Store) UpdateCalendar(ctx context.Context, prev, next *domain.Calendar) error {
	next.Version = prev.Version + 1
	next.UpdatedAt = s.now()
	return s.updateOwner(ctx, calendarOwner(prev), calendarOwner(next), toCalendarItem(next))
}

// DeleteCalendar deletes a calendar and what hangs from it. Cascades run first and are
// idempotent (the entity's events and notes, and the events of other entities that use this
// calendar), so a delete that fails half-way is finished by retrying it; the calendar, its
// entity and the total then go in one transaction conditional on the version read.
func (s *Store) DeleteCalendar(ctx context.Context, c *domain.Calendar) error {
	err := concurrently(
		func() error { return s.deletePartition(ctx, childPK(c.CampaignID, entityPrefix, c.EntityID)) },
		func() error { return s.deleteCalendarEvents(ctx, c) },
	)
	if err != nil {
		return err
	}
	return s.deleteOwner(ctx, calendarOwner(c))
}

// deleteCalendarEvents deletes the entity events of other entities that use calendar c, found
// through the calendar index (the calendar's own entity's events go with its partition), in
// batches of 25. Events keep no counter item (their totals are counted by query), so deleting
// one is a plain, idempotent delete.
func (s *Store) deleteCalendarEvents(ctx context.Context, c *domain.Calendar) error {
	var refs []struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	err := s.table.Get("gsi1pk", calendarGSI(c.CampaignID, c.ID)).Index(GSI1).Project("pk", "sk").All(ctx, &refs)
	if err != nil {
		return wrap(err)
	}
	own := childPK(c.CampaignID, entityPrefix, c.EntityID)
	var keys []dynamo.Keyed
	for _, ev := range refs {
		if ev.PK != own && strings.HasPrefix(ev.SK, eventPrefix+"#") {
			keys = append(keys, dynamo.Keys{ev.PK, ev.SK})
		}
	}
	for start := 0; start < len(keys); start += 25 {
		if _, err := s.table.Batch("pk", "sk").Write().Delete(keys[start:min(start+25, len(keys))]...).Run(ctx); err != nil {
			return wrap(err)
		}
	}
	return nil
}
