package entitynotes

import (
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
	// VisibilityID is Kanka's number for Visibility, answered beside it (DESIGN.md 9).
	VisibilityID int `json:"visibility_id"`
	Settings     any `json:"settings"`
	httpapi.AuditJSON
}

// render shapes notes for the caller. The entities mentioned by all of them are read in one
// batched read, bounded: at most domain.MaxMentions distinct entities per note.
func (h handlers) render(r *httpapi.Request, notes ...domain.Note) ([]noteJSON, error) {
	entries := make([]httpapi.Entry, len(notes))
	for i, n := range notes {
		entries[i] = httpapi.Entry{Kind: "note", ID: n.ID, Text: n.Entry}
	}
	parsed, err := r.ParseEntries(h.st, entries)
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
			EntryParsed: parsed[i], Position: n.Position,
			Visibility: string(n.Visibility), VisibilityID: n.Visibility.ID(), Settings: settings, AuditJSON: httpapi.RenderAudit(n.Meta)}
	}
	return out, nil
}
