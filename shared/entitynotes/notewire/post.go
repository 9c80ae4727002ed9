package notewire

// Post is a note in Kanka's current post shape (DESIGN.md 9): the note's fields, and what
// Kanka answers for the post features Lorekeep does not store (tags, layouts, templates,
// per-post permissions, calendar reminders), spelled as Kanka spells them when unset.
type Post struct {
	Note
	IsPinned               bool    `json:"is_pinned"` // a note with a position is pinned
	IsPrivate              bool    `json:"is_private"`
	Tags                   []int64 `json:"tags"`
	LayoutID               *int64  `json:"layout_id"`
	IsTemplate             bool    `json:"is_template"`
	Permissions            []any   `json:"permissions"`
	CalendarID             *int64  `json:"calendar_id"`
	CalendarYear           *int64  `json:"calendar_year"`
	CalendarMonth          *int64  `json:"calendar_month"`
	CalendarDay            *int64  `json:"calendar_day"`
	CalendarReminderLength *int64  `json:"calendar_reminder_length"`
}

// AsPost is n in the post shape.
func AsPost(n Note) Post {
	return Post{Note: n, IsPinned: n.Position != nil, Tags: []int64{}, Permissions: []any{}}
}
