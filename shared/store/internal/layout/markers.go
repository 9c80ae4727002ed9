package layout

import "github.com/lorekeep/lorekeep/shared/domain"

type MarkerItem struct {
	MetaAttrs
	MapID        int64  `dynamo:"map_id"`
	Name         string `dynamo:"name"`
	NameLC       string `dynamo:"name_lc,omitempty"`
	EntityID     *int64 `dynamo:"entity_id,omitempty"`
	GroupID      *int64 `dynamo:"group_id,omitempty"`
	IsPrivate    bool   `dynamo:"is_private"`
	Latitude     int64  `dynamo:"latitude"`
	Longitude    int64  `dynamo:"longitude"`
	ShapeID      int64  `dynamo:"shape_id"`
	Icon         int64  `dynamo:"icon"`
	CustomShape  string `dynamo:"custom_shape,omitempty"`
	PolygonStyle string `dynamo:"polygon_style,omitempty"`
	Colour       string `dynamo:"colour,omitempty"`
	FontColour   string `dynamo:"font_colour,omitempty"`
	Opacity      int64  `dynamo:"opacity"`
	SizeID       int64  `dynamo:"size_id"`
	CircleRadius *int64 `dynamo:"circle_radius,omitempty"`
	PinSize      *int64 `dynamo:"pin_size,omitempty"`
	CustomIcon   string `dynamo:"custom_icon,omitempty"`
	Entry        string `dynamo:"entry,omitempty"`
	IsDraggable  bool   `dynamo:"is_draggable"`
	IsPopupless  bool   `dynamo:"is_popupless"`
	Visibility   string `dynamo:"visibility"`
}

func (it MarkerItem) Marker() domain.Marker {
	return domain.Marker{Meta: it.Meta(), MapID: it.MapID, Name: it.Name, EntityID: it.EntityID, GroupID: it.GroupID, EntityPrivate: it.IsPrivate,
		Latitude: it.Latitude, Longitude: it.Longitude, ShapeID: it.ShapeID, Icon: it.Icon, CustomShape: it.CustomShape,
		PolygonStyle: it.PolygonStyle, Colour: it.Colour, FontColour: it.FontColour, Opacity: it.Opacity, SizeID: it.SizeID,
		CircleRadius: it.CircleRadius, PinSize: it.PinSize, CustomIcon: it.CustomIcon, Entry: it.Entry,
		IsDraggable: it.IsDraggable, IsPopupless: it.IsPopupless, Visibility: domain.Visibility(it.Visibility)}
}
