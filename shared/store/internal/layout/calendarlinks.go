package layout

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// DayLinkItem is an event as the day view needs it.
type DayLinkItem struct {
	PK             string `dynamo:"pk"`
	SK             string `dynamo:"sk"`
	ID             int64  `dynamo:"id"`
	EntityID       int64  `dynamo:"entity_id"`
	CampaignID     int64  `dynamo:"campaign_id"`
	CalendarID     int64  `dynamo:"calendar_id"`
	Name           string `dynamo:"name"`
	Year           int64  `dynamo:"year"`
	Month          int    `dynamo:"month"`
	Day            int    `dynamo:"day"`
	Length         int    `dynamo:"length"`
	Periodicity    string `dynamo:"recurring_periodicity,omitempty"`
	RecurringUntil *int64 `dynamo:"recurring_until,omitempty"`
	Recurrence     string `dynamo:"recurrence,omitempty"`
	Hour           *int   `dynamo:"hour,omitempty"`
	Minute         *int   `dynamo:"minute,omitempty"`
	Colour         string `dynamo:"colour,omitempty"`
	IsPrivate      bool   `dynamo:"is_private"`
	Visibility     string `dynamo:"visibility"`
	CreatedBy      int64  `dynamo:"created_by"`
	Version        int64  `dynamo:"version"`
	EntityPrivate  bool   `dynamo:"entity_private"`
}

func ToDayLink(ev *timeline.Event) DayLinkItem {
	k := EventDayKey(ev)
	ei := ToEventItem(ev)
	return DayLinkItem{Recurrence: ei.Recurrence, Hour: ei.Hour, Minute: ei.Minute, PK: k.PK, SK: k.SK, ID: ev.ID, EntityID: ev.EntityID, CampaignID: ev.CampaignID,
		CalendarID: ev.CalendarID, Name: ev.Name, Year: ev.Date.Year, Month: ev.Date.Month, Day: ev.Date.Day,
		Length: ev.Length, Periodicity: ev.Recurrence.Periodicity(), RecurringUntil: ev.RecurringUntil,
		Colour: ev.Colour, IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), CreatedBy: ev.CreatedBy,
		Version: ev.Version, EntityPrivate: ev.EntityPrivate}
}

func EventDayKey(ev *timeline.Event) ItemKey {
	return DayLinkKey(ev.CampaignID, ev.CalendarID, ev.ID, !ev.FoundByDate(), ev.Date.Year, ev.Date.Month, ev.Date.Day)
}

// event is the link as a day view's event (no comment, type or write history).
func (it DayLinkItem) Event() timeline.Event {
	ei := EventItem{MetaAttrs: MetaAttrs{ID: it.ID, CampaignID: it.CampaignID, CreatedBy: it.CreatedBy, Version: it.Version},
		EntityID: it.EntityID, CalendarID: it.CalendarID, Name: it.Name, Year: it.Year, Month: it.Month, Day: it.Day,
		Length: it.Length, Periodicity: it.Periodicity, RecurringUntil: it.RecurringUntil, Colour: it.Colour,
		IsPrivate: it.IsPrivate, Visibility: it.Visibility, Recurrence: it.Recurrence, Hour: it.Hour, Minute: it.Minute}
	ev := ei.Event()
	ev.EntityPrivate = it.EntityPrivate
	return ev
}

// ReminderSlots place an event's reminder links in its calendar's partition. None is a record
// home: their writes are conditional only where linkEvent says.
func ReminderSlots(ev *timeline.Event) []Slot {
	sls := ChildSlots(ReminderKind, CalendarPK(ev.CampaignID, ev.CalendarID), ev.ID, ev.CreatedBy, ev.Visibility, ev.IsPrivate || ev.EntityPrivate)
	for i := range sls {
		sls[i].Home = false
	}
	return sls
}

// ReminderItem is the event whole, for its reminder links.
func ReminderItem(ev *timeline.Event) dynamo.Item {
	it := Marshal(ToEventItem(ev))
	it["entity_private"] = &types.AttributeValueMemberBOOL{Value: ev.EntityPrivate}
	return it
}
