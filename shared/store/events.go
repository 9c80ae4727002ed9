package store

import (
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

func events(items []layout.EventItem) []timeline.Event {
	out := make([]timeline.Event, len(items))
	for i, it := range items {
		out[i] = it.Event()
	}
	return out
}

func eventSlots(ev *timeline.Event) []layout.Slot {
	return append(layout.ChildSlots(layout.EventPrefix, layout.EntityPK(ev.CampaignID, ev.EntityID), ev.ID, ev.CreatedBy, ev.Visibility, ev.IsPrivate),
		layout.RelatedSlot(ev.CampaignID, ev.EntityID, layout.EventPrefix, ev.ID))
}
