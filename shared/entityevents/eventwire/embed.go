package eventwire

import "github.com/lorekeep/lorekeep/shared/domain/timeline"

// RenderEvents and RenderReminders shape events as their own routes answer them, for the
// records that embed them (?related=1): the one render of each shape.
func RenderEvents(evs []timeline.Event) []any {
	out := make([]any, len(evs))
	for i := range evs {
		out[i] = Render(&evs[i])
	}
	return out
}

// RenderReminders: see RenderEvents.
func RenderReminders(evs []timeline.Event) []any {
	out := make([]any, len(evs))
	for i := range evs {
		out[i] = RenderReminder(&evs[i])
	}
	return out
}
