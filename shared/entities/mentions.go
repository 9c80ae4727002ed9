package entities

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// mentionJSON is one mention as Kanka answers it (EntityMentionResource): entity_id's entry
// (post_id null) or post mentions target_id. entity_note_id is the 2022 name of post_id;
// campaign_id is set by Kanka only for the campaign's own entry, which Lorekeep does not parse.
type mentionJSON struct {
	EntityID     int64  `json:"entity_id"`
	PostID       *int64 `json:"post_id"`
	EntityNoteID *int64 `json:"entity_note_id"`
	CampaignID   *int64 `json:"campaign_id"`
	TargetID     int64  `json:"target_id"`
}

// mentions is entities/{id}/mentions: Kanka's direction (what {id}'s entry and posts mention),
// or with ?direction=in the reverse (who mentions {id}), in the same rows; only what the caller
// may see, paged in memory (the rows are read whole: the cursor continues by position).
func (h handlers) mentions(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	var incoming bool
	switch r.Param("direction") {
	case "", "out":
	case "in":
		incoming = true
	default:
		return httpapi.Reply{}, apperr.Invalid("direction", "The selected direction is invalid.")
	}
	rows, err := h.st.Mentions(r.Context(), e, r.Access, incoming)
	if err != nil {
		return httpapi.Reply{}, err
	}
	type ranked struct {
		n   int64
		row domain.MentionRow
	}
	all := make([]ranked, len(rows))
	for i, row := range rows {
		all[i] = ranked{int64(i + 1), row}
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res := domain.PageOf(all, page, func(x *ranked) int64 { return x.n })
	return httpapi.Page(res, page, func(x *ranked) mentionJSON {
		j := mentionJSON{EntityID: x.row.EntityID, TargetID: x.row.TargetID}
		if x.row.PostID != 0 {
			post := x.row.PostID
			j.PostID, j.EntityNoteID = &post, &post
		}
		return j
	}), nil
}
