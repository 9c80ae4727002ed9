package layout

import "github.com/lorekeep/lorekeep/shared/domain"

type MapItem struct {
	MetaAttrs
	OwnerAttrs
	ParentID    *int64 `dynamo:"map_id,omitempty"`
	LocationID  *int64 `dynamo:"location_id,omitempty"`
	Grid        int64  `dynamo:"grid,omitempty"`
	IsReal      bool   `dynamo:"is_real"`
	MinZoom     *int64 `dynamo:"min_zoom,omitempty"`
	MaxZoom     *int64 `dynamo:"max_zoom,omitempty"`
	InitialZoom *int64 `dynamo:"initial_zoom,omitempty"`
	CenterX     *int64 `dynamo:"center_x,omitempty"`
	CenterY     *int64 `dynamo:"center_y,omitempty"`
	Config      string `dynamo:"config,omitempty"`
	// The centre marker and its placement (domain.MapCentre), kept by the marker's writes.
	CenterMarker  *int64 `dynamo:"center_marker_id,omitempty"`
	CenterVis     string `dynamo:"center_visibility,omitempty"`
	CenterBy      int64  `dynamo:"center_by,omitempty"`
	CenterPrivate bool   `dynamo:"center_private,omitempty"`
	// ParentHidden: what the public copy leaves out (CopyItem), never stored; LocationHidden
	// likewise, kept on the home (layout.go).
	ParentHidden   bool `dynamo:"parent_hidden,omitempty"`
	LocationHidden bool `dynamo:"location_hidden,omitempty"`
}

func (it MapItem) Record() domain.Map {
	m := domain.Map{Meta: it.Meta(), Owner: it.Owner(), ParentID: it.ParentID, LocationID: it.LocationID, Grid: it.Grid,
		IsReal: it.IsReal, MinZoom: it.MinZoom, MaxZoom: it.MaxZoom, InitialZoom: it.InitialZoom, CenterX: it.CenterX,
		CenterY: it.CenterY, Config: it.Config, LocationPrivate: it.LocationID != nil && it.LocationHidden}
	if it.CenterMarker != nil {
		m.Centre = &domain.MapCentre{ID: *it.CenterMarker, Visibility: domain.Visibility(it.CenterVis), CreatedBy: it.CenterBy, Private: it.CenterPrivate}
	}
	return m
}
