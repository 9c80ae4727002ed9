package domain

import (
	"html"
	"strconv"
	"strings"
)

// MentionedIDs lists the entity ids mentioned by any of the entries, in order, repeats included:
// the input of one batched read of the entities.
func MentionedIDs(entries ...string) []int64 {
	var ids []int64
	for _, e := range entries {
		for _, m := range Mentions(e) {
			ids = append(ids, m.EntityID)
		}
	}
	return ids
}

// RenderMentions is an entry's entry_parsed: [type:id] and [type:id|text] become links to the
// campaign's entities the caller may see; any other mention becomes an "Unknown" marker, hidden
// entities included so that a mention reveals nothing.
func RenderMentions(entry string, entities map[int64]*Entity, a Access) string {
	mentions := Mentions(entry)
	if len(mentions) == 0 {
		return entry
	}
	var b strings.Builder
	last := 0
	for _, m := range mentions {
		b.WriteString(entry[last:m.Start])
		last = m.End
		e := entities[m.EntityID]
		if e == nil || !a.CanSee(e.IsPrivate) {
			b.WriteString(`<span class="entity-mention-unknown">Unknown</span>`)
			continue
		}
		text := e.Name
		if m.Text != "" {
			text = html.UnescapeString(m.Text) // the entry is stored sanitised: escape exactly once
		}
		b.WriteString(`<a href="` + e.APIPath() + `" class="entity-mention" data-entity-type="` +
			html.EscapeString(e.Type) + `" data-entity-id="` + strconv.FormatInt(e.ID, 10) + `">` + html.EscapeString(text) + `</a>`)
	}
	b.WriteString(entry[last:])
	return b.String()
}

// APIPath is the API path of the record an entity belongs to (Kanka's urls.api, relative).
func (e *Entity) APIPath() string {
	collection := map[string]string{"location": "locations", "calendar": "calendars"}[e.Type]
	if collection == "" {
		return "#entity-" + strconv.FormatInt(e.ID, 10)
	}
	return "/api/1.0/campaigns/" + strconv.FormatInt(e.CampaignID, 10) + "/" + collection + "/" + strconv.FormatInt(e.ChildID, 10)
}
