package domain

import (
	"strconv"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// RenderMentions is an entry's entry_parsed: [type:id] and [type:id|text] in its text become
// links to the campaign's entities the caller may see; any other mention becomes an "Unknown"
// marker, hidden entities included so that a mention reveals nothing.
func RenderMentions(entry string, entities map[int64]*Entity, a Access) string {
	return ReplaceMentions(entry, func(m Mention) *html.Node {
		e := entities[m.EntityID]
		if e == nil || !a.CanSee(e.IsPrivate) {
			return element(atom.Span, "Unknown", html.Attribute{Key: "class", Val: "entity-mention-unknown"})
		}
		text := e.Name
		if m.Text != "" {
			text = m.Text
		}
		return element(atom.A, text,
			html.Attribute{Key: "href", Val: e.APIPath()},
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

// APIPath is the API path of the record an entity belongs to (Kanka's urls.api, relative).
func (e *Entity) APIPath() string {
	collection := map[string]string{"location": "locations", "calendar": "calendars", "tag": "tags", "map": "maps"}[e.Type]
	if collection == "" {
		return "#entity-" + strconv.FormatInt(e.ID, 10)
	}
	return "/api/1.0/campaigns/" + strconv.FormatInt(e.CampaignID, 10) + "/" + collection + "/" + strconv.FormatInt(e.ChildID, 10)
}
