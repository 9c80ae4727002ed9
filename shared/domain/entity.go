package domain

// Entity is the record every calendar and location owns: the parent of entity events and notes,
// and the target of mentions and map points. It mirrors its child's name and privacy.
type Entity struct {
	ID         int64
	CampaignID int64
	Type       string // "location", "calendar"
	ChildID    int64
	Name       string
	IsPrivate  bool
}
