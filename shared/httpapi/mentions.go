package httpapi

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"runtime/debug"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// EntityBatchReader reads several entities of a campaign in one round trip (the store does).
type EntityBatchReader interface {
	GetEntities(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error)
}

// Entry is one record's stored (sanitised) entry and the key that names the record in a log line.
type Entry struct {
	Kind string // note, location, calendar
	ID   int64
	Text string
}

// renderMentions is domain.RenderMentions; the package's tests replace it to make one row fail.
var renderMentions = domain.RenderMentions

// ParseEntries renders the entry_parsed of each entry for the caller. The entities mentioned by
// all of them are read in one batch (at most domain.MaxMentions per entry), and not at all when
// nothing is mentioned. An entry whose rendering fails (a panic) fails alone: it is logged with
// its record's key and answered as its sanitised entry, so that one record can never make a
// list, a related=1 page or another reader's request fail.
func (r *Request) ParseEntries(st EntityBatchReader, entries []Entry) ([]string, error) {
	var ids []int64
	failed := make([]error, len(entries))
	for i, e := range entries {
		m, err := guard(func() []int64 { return domain.MentionedIDs(e.Text) })
		failed[i] = err
		ids = append(ids, m[:min(len(m), domain.MaxMentions)]...) // an entry stored before the bound
	}
	entities, err := st.GetEntities(r.Context(), r.Access.CampaignID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		if failed[i] == nil {
			out[i], failed[i] = guard(func() string { return renderMentions(e.Text, entities, r.Access) })
		}
		if failed[i] != nil {
			r.logger().LogAttrs(r.Context(), slog.LevelError, "entry_parsed failed", slog.String("path", r.URL.Path),
				slog.Int64("campaign_id", r.Access.CampaignID), slog.String("kind", e.Kind), slog.Int64("id", e.ID),
				slog.String("error", failed[i].Error()))
			out[i] = sanitised(e.Text)
		}
	}
	return out, nil
}

// guard calls f, turning a panic into an error with its stack.
func guard[T any](f func() T) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return f(), nil
}

// sanitised is the entry_parsed of an entry whose mentions could not be rendered: the entry
// sanitised once more (it was stored sanitised), or as escaped text should even that fail.
func sanitised(entry string) string {
	s, err := guard(func() string { return sanitize.HTML(entry) })
	if err != nil {
		return html.EscapeString(entry)
	}
	return s
}

// ParseOwners fills the entry_parsed of rendered calendars and locations (kind names them in a
// log line), null when the entry is empty (as Kanka answers), with the mentions of all of them
// resolved by one batched read.
func (r *Request) ParseOwners(st EntityBatchReader, kind string, owners ...*OwnerJSON) error {
	entries := make([]Entry, len(owners))
	for i, o := range owners {
		entries[i] = Entry{Kind: kind, ID: o.ID, Text: o.Entry}
	}
	parsed, err := r.ParseEntries(st, entries)
	if err != nil {
		return err
	}
	for i, o := range owners {
		o.EntryParsed = nil
		if parsed[i] != "" {
			o.EntryParsed = &parsed[i]
		}
	}
	return nil
}

// OwnerPage is Page for records that own an entity: their entry_parsed is filled too.
func OwnerPage[T, J any](r *Request, st EntityBatchReader, kind string, res domain.Page[T], page domain.PageRequest, render func(*T) J, owner func(*J) *OwnerJSON) (Reply, error) {
	out := make([]J, len(res.Items))
	owners := make([]*OwnerJSON, len(res.Items))
	for i := range res.Items {
		out[i] = render(&res.Items[i])
		owners[i] = owner(&out[i])
	}
	if err := r.ParseOwners(st, kind, owners...); err != nil {
		return Reply{}, err
	}
	return Many(out, res.Total, res.Next, res.Cursors, page), nil
}

// OwnerRender renders one calendar or location with its entry_parsed.
func OwnerRender[J any](r *Request, st EntityBatchReader, kind string, j J, owner func(*J) *OwnerJSON) (any, error) {
	if err := r.ParseOwners(st, kind, owner(&j)); err != nil {
		return nil, err
	}
	return j, nil
}
