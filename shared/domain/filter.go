package domain

import (
	"strings"
	"time"
)

// RecordFilter narrows a list of campaign records (calendars, locations). Nil fields do not
// filter.
type RecordFilter struct {
	Name      string // case-insensitive substring
	Type      *string
	IsPrivate *bool
	Tags      []int64 // every one of these tags
	CreatedBy *int64
	// UpdatedAfter is the client's lastSync.
	UpdatedAfter *time.Time
}

// ReadRecordFilter reads the filters every record list takes from query parameters, with the
// same reader as bodies: a bad value is a 422 naming the parameter. lastSync is read apart.
func ReadRecordFilter(rd *Reader) RecordFilter {
	var f RecordFilter
	if v := rd.String("name", MaxNameLength); v.Present() {
		f.Name = strings.TrimSpace(v.Value)
	}
	if v := rd.String("type", MaxNameLength); v.Present() {
		f.Type = &v.Value
	}
	if v := rd.Bool("is_private"); v.Present() {
		f.IsPrivate = &v.Value
	}
	if v := rd.IDs("tags", MaxTags); v.Present() {
		f.Tags = v.Value
	}
	if v := rd.ID("created_by"); v.Present() {
		f.CreatedBy = &v.Value
	}
	return f
}
