package entitynotes

import (
	"html"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// noteJSON is a note as Kanka clients read it.
type noteJSON struct {
	ID          int64  `json:"id"`
	EntityID    int64  `json:"entity_id"`
	Name        string `json:"name"`
	Entry       string `json:"entry"`
	EntryParsed string `json:"entry_parsed"`
	Position    *int64 `json:"position"`
	Visibility  string `json:"visibility"`
	Settings    any    `json:"settings"`
	httpapi.AuditJSON
}

// render shapes notes for the caller. The entities mentioned by all of them are read in one
// batch, whatever the number of mentions.
func (h handlers) render(r *httpapi.Request, notes ...domain.Note) ([]noteJSON, error) {
	var ids []int64
	for _, n := range notes {
		for _, m := range domain.Mentions(n.Entry) {
			ids = append(ids, m.EntityID)
		}
	}
	entities, err := h.st.GetEntities(r.Context(), r.Access.CampaignID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]noteJSON, len(notes))
	for i, n := range notes {
		var settings any = []any{}
		if n.Collapsed {
			settings = map[string]int{"collapsed": 1}
		}
		out[i] = noteJSON{ID: n.ID, EntityID: n.EntityID, Name: n.Name, Entry: n.Entry,
			EntryParsed: parseMentions(n.Entry, entities, r.Access), Position: n.Position,
			Visibility: string(n.Visibility), Settings: settings, AuditJSON: httpapi.RenderAudit(n.Meta)}
	}
	return out, nil
}

// parseMentions turns [type:id] and [type:id|text] into links to the campaign's entities the
// caller may see; any other mention becomes an "Unknown" marker, hidden entities included so
// that a mention reveals nothing.
func parseMentions(entry string, entities map[int64]*domain.Entity, a domain.Access) string {
	mentions := domain.Mentions(entry)
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
		b.WriteString(`<a href="` + entityPath(a.CampaignID, e) + `" class="entity-mention" data-entity-type="` +
			html.EscapeString(e.Type) + `" data-entity-id="` + strconv.FormatInt(e.ID, 10) + `">` + html.EscapeString(text) + `</a>`)
	}
	b.WriteString(entry[last:])
	return b.String()
}

// entityPath is the API path of the record an entity belongs to.
func entityPath(cid int64, e *domain.Entity) string {
	collection := map[string]string{"location": "locations", "calendar": "calendars"}[e.Type]
	if collection == "" {
		return "#entity-" + strconv.FormatInt(e.ID, 10)
	}
	return "/api/1.0/campaigns/" + strconv.FormatInt(cid, 10) + "/" + collection + "/" + strconv.FormatInt(e.ChildID, 10)
}
