package entitynotes

import (
	"strconv"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

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
// batched read, bounded: at most domain.MaxMentions distinct entities per note.
func (h handlers) render(r *httpapi.Request, notes ...domain.Note) ([]noteJSON, error) {
	var ids []int64
	for _, n := range notes {
		m := domain.MentionedIDs(n.Entry)
		ids = append(ids, m[:min(len(m), domain.MaxMentions)]...) // a note stored before the bound
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

// parseMentions turns [type:id] and [type:id|text] in the entry's text into links to the
// campaign's entities the caller may see; any other mention becomes an "Unknown" marker, hidden
// entities included so that a mention reveals nothing.
func parseMentions(entry string, entities map[int64]*domain.Entity, a domain.Access) string {
	return domain.ReplaceMentions(entry, func(m domain.Mention) *html.Node {
		e := entities[m.EntityID]
		if e == nil || !a.CanSee(e.IsPrivate) {
			return element(atom.Span, "Unknown", html.Attribute{Key: "class", Val: "entity-mention-unknown"})
		}
		text := e.Name
		if m.Text != "" {
			text = m.Text
		}
		return element(atom.A, text,
			html.Attribute{Key: "href", Val: entityPath(a.CampaignID, e)},
			html.Attribute{Key: "class", Val: "entity-mention"},
			html.Attribute{Key: "data-entity-type", Val: e.Type},
			html.Attribute{Key: "data-entity-id", Val: strconv.FormatInt(e.ID, 10)})
	})
}

// element is <tag attrs...>text</tag>; rendering escapes the text and attributes.
func element(tag atom.Atom, text string, attrs ...html.Attribute) *html.Node {
	n := &html.Node{Type: html.ElementNode, DataAtom: tag, Data: tag.String(), Attr: attrs}
	n.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	return n
}

// entityPath is the API path of the record an entity belongs to.
func entityPath(cid int64, e *domain.Entity) string {
	collection := map[string]string{"location": "locations", "calendar": "calendars"}[e.Type]
	if collection == "" {
		return "#entity-" + strconv.FormatInt(e.ID, 10)
	}
	return "/api/1.0/campaigns/" + strconv.FormatInt(cid, 10) + "/" + collection + "/" + strconv.FormatInt(e.ChildID, 10)
}
