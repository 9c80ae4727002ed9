// Package relwire is the wire shape of relations: what the relations family answers and what a
// record embeds with ?related=1, rendered one way.
package relwire

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Relation is Kanka's RelationResource (both eras' names: is_star and is_pinned, visibility and
// visibility_id). No target name anywhere, as Kanka.
type Relation struct {
	ID           int64  `json:"id"`
	OwnerID      int64  `json:"owner_id"`
	TargetID     int64  `json:"target_id"`
	Relation     string `json:"relation"`
	Attitude     int64  `json:"attitude"`
	Colour       string `json:"colour"`
	Visibility   string `json:"visibility"`
	VisibilityID int    `json:"visibility_id"`
	IsStar       bool   `json:"is_star"`
	IsPinned     bool   `json:"is_pinned"`
	MirrorID     *int64 `json:"mirror_id"`
	httpapi.AuditJSON
}

// Render shapes one relation.
func Render(r domain.Relation) Relation {
	colour := ""
	if r.Colour != "" {
		colour = "#" + r.Colour
	}
	return Relation{ID: r.ID, OwnerID: r.OwnerID, TargetID: r.TargetID, Relation: r.Relation, Attitude: r.Attitude,
		Colour: colour, Visibility: string(r.Visibility), VisibilityID: r.Visibility.ID(), IsStar: r.IsPinned,
		IsPinned: r.IsPinned, MirrorID: r.MirrorID, AuditJSON: httpapi.RenderAudit(r.Meta)}
}

// RenderAll shapes relations.
func RenderAll(rs []domain.Relation) []Relation {
	out := make([]Relation, len(rs))
	for i, r := range rs {
		out[i] = Render(r)
	}
	return out
}

// Embedded is what the related=1 arrays hold: the relations the caller may see.
func Embedded(a domain.Access, rs []domain.Relation) []any {
	out := []any{}
	for i := range rs {
		if a.CanSeeRelation(&rs[i]) {
			out = append(out, Render(rs[i]))
		}
	}
	return out
}
