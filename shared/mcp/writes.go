package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// minItemTime is what a batch's next item needs left of the call's budget to be attempted:
// one REST request's deadline.
const minItemTime = httpapi.DefaultTimeout

// batch runs n writes, one REST request each, in order; the items the budget leaves no time
// for are answered as not attempted.
func (s *Server) batch(ctx context.Context, n int, key string, do func(i int) (answer, error)) Batch {
	var b Batch
	for i := range n {
		if dl, ok := ctx.Deadline(); ctx.Err() != nil || (ok && time.Until(dl) < minItemTime) {
			b.add(ItemResult{Index: i, Error: &restError{Status: 0, Message: "Not attempted: the call's time ran out. Send this item again."}})
			continue
		}
		a, err := do(i)
		if err != nil {
			b.add(ItemResult{Index: i, Error: &restError{Status: http.StatusUnprocessableEntity, Message: err.Error()}})
			continue
		}
		r := ItemResult{Index: i, Status: a.status, Replayed: a.header.Get(httpapi.ReplayedHeader) == "true"}
		if a.ok() {
			if rec, err := one(a); err == nil {
				r.OK, r.Record = true, rec.Record
			} else {
				r.Error = &restError{Status: a.status, Message: err.Error()}
			}
		} else {
			r.Error = a.restError()
		}
		b.add(r)
	}
	b.finish(key)
	return b
}

func checkBatch(n int) error {
	if n == 0 || n > MaxBatch {
		return fmt.Errorf("items: 1 to %d items", MaxBatch)
	}
	return nil
}

// idOf reads an update item's id.
func idOf(item map[string]any, i int) (int64, error) {
	var id int64
	switch v := item["id"].(type) {
	case float64:
		id = int64(v)
		if float64(id) != v {
			id = 0
		}
	case json.Number:
		id, _ = v.Int64()
	case string:
		id, _ = strconv.ParseInt(v, 10, 64)
	}
	if id < 1 {
		return 0, fmt.Errorf("items[%d].id: required, the record's id in its module", i)
	}
	return id, nil
}

func (s *Server) addWriteTools(mods []any) {
	enum := map[string][]any{"module": mods, "entry_format": {"markdown", "html"}}
	tool(s, "create_records", "Create records", "Create up to 100 records of one module, one REST create each, in order: one result per item. Entries are Markdown unless entry_format is html; mention records as [character:12].",
		enum, false, false,
		func(ctx context.Context, in createIn) (Batch, error) {
			path, q, err := s.writeArgs(in.CampaignID, in.Module, in.formatArg, in.IdempotencyKey)
			if err != nil {
				return Batch{}, err
			}
			if err := checkBatch(len(in.Items)); err != nil {
				return Batch{}, err
			}
			return s.batch(ctx, len(in.Items), in.IdempotencyKey, func(i int) (answer, error) {
				return s.rest(ctx, http.MethodPost, path, q, in.Items[i], itemKey(in.IdempotencyKey, i)), nil
			}), nil
		})
	tool(s, "update_records", "Update records", "Change up to 100 records of one module, each item its id and only the fields to change (a REST PATCH each): one result per item.",
		enum, false, false,
		func(ctx context.Context, in updateIn) (Batch, error) {
			path, q, err := s.writeArgs(in.CampaignID, in.Module, in.formatArg, in.IdempotencyKey)
			if err != nil {
				return Batch{}, err
			}
			if err := checkBatch(len(in.Items)); err != nil {
				return Batch{}, err
			}
			return s.batch(ctx, len(in.Items), in.IdempotencyKey, func(i int) (answer, error) {
				id, err := idOf(in.Items[i], i)
				if err != nil {
					return answer{}, err
				}
				body := make(map[string]any, len(in.Items[i]))
				for k, v := range in.Items[i] {
					if k != "id" {
						body[k] = v
					}
				}
				return s.rest(ctx, http.MethodPatch, path+"/"+strconv.FormatInt(id, 10), q, body, itemKey(in.IdempotencyKey, i)), nil
			}), nil
		})
	tool(s, "delete_records", "Delete records", "Delete up to 100 records of one module (to the trash, restorable by admins for 30 days), with confirm: true. One result per item.",
		map[string][]any{"module": mods}, false, true,
		func(ctx context.Context, in deleteIn) (Batch, error) {
			path, _, err := s.writeArgs(in.CampaignID, in.Module, formatArg{EntryFormat: "html"}, in.IdempotencyKey)
			if err != nil {
				return Batch{}, err
			}
			if !in.Confirm {
				return Batch{}, errors.New("confirm: must be true to delete; ask the user first")
			}
			if len(in.IDs) == 0 || len(in.IDs) > MaxBatch {
				return Batch{}, fmt.Errorf("ids: 1 to %d ids", MaxBatch)
			}
			return s.batch(ctx, len(in.IDs), in.IdempotencyKey, func(i int) (answer, error) {
				if in.IDs[i] < 1 {
					return answer{}, fmt.Errorf("ids[%d]: a record's id, at least 1", i)
				}
				return s.rest(ctx, http.MethodDelete, path+"/"+strconv.FormatInt(in.IDs[i], 10), nil, nil, itemKey(in.IdempotencyKey, i)), nil
			}), nil
		})
	tool(s, "posts", "Posts of a record", "A record's posts (Kanka's posts: titled entries under an entity): list, get, create, update or delete one.",
		map[string][]any{"action": {"list", "get", "create", "update", "delete"}, "entry_format": {"markdown", "html"}}, false, true,
		func(ctx context.Context, in postsIn) (Batch, error) {
			return s.sub(ctx, subIn{campaignArg: in.campaignArg, formatArg: in.formatArg, EntityID: in.EntityID, Resource: "posts", Action: in.Action,
				ID: in.PostID, Fields: in.Fields, Page: in.Page, Confirm: in.Confirm, IdempotencyKey: in.IdempotencyKey}, "post_id")
		})
	tool(s, "entity_resources", "Sub-resources of a record", "A record's attributes, relations, entity tags, entity events, entity notes, reminders, inventory and entity abilities, an organisation's members (list, get, create, update, delete), and a record's mentions and ages (list).",
		map[string][]any{"resource": subResourceEnum(), "action": {"list", "get", "create", "update", "delete"}, "entry_format": {"markdown", "html"}}, false, true,
		func(ctx context.Context, in subIn) (Batch, error) { return s.sub(ctx, in, "id") })
	tool(s, "calendar", "Calendar", "A calendar's current date (today), moving it (advance, retreat by days), what falls on some days (day: its events, reminders, weather), and the reminders to come.",
		map[string][]any{"action": {"today", "advance", "retreat", "day", "reminders"}}, false, false, s.calendar)
}

// subResources are the routes under an entity a tool reaches, and whether they are read only.
var subResources = map[string]bool{"attributes": false, "relations": false, "entity_tags": false, "entity_events": false,
	"entity_notes": false, "reminders": false, "posts": false, "organisation_members": false, "inventory": false, "entity_abilities": false, "mentions": true, "ages": true}

func subResourceEnum() []any {
	return []any{"attributes", "relations", "entity_tags", "entity_events", "entity_notes", "reminders", "organisation_members", "inventory", "entity_abilities", "mentions", "ages"}
}

// writeArgs checks a write's common arguments: the collection's path and query.
func (s *Server) writeArgs(cid int64, module string, f formatArg, key string) (string, url.Values, error) {
	if err := checkCampaign(cid); err != nil {
		return "", nil, err
	}
	p, err := s.modules.path(module)
	if err != nil {
		return "", nil, err
	}
	if err := checkKey(key); err != nil {
		return "", nil, err
	}
	q, err := f.query(nil)
	return campaignPath(cid, p), q, err
}

// sub is one action on a sub-resource of an entity, answered as a batch of one (a list: its
// records as the results).
func (s *Server) sub(ctx context.Context, in subIn, idName string) (Batch, error) {
	if err := checkCampaign(in.CampaignID); err != nil {
		return Batch{}, err
	}
	readOnly, ok := subResources[in.Resource]
	if !ok || (in.Resource == "posts") != (idName == "post_id") {
		return Batch{}, fmt.Errorf("resource: %q is not one of %v", in.Resource, subResourceEnum())
	}
	if err := checkKey(in.IdempotencyKey); err != nil {
		return Batch{}, err
	}
	q, err := in.query(nil)
	if err != nil {
		return Batch{}, err
	}
	var base string
	switch {
	case in.Resource == "organisation_members" && in.OrganisationID > 0:
		base = campaignPath(in.CampaignID, "/organisations/"+strconv.FormatInt(in.OrganisationID, 10)+"/organisation_members")
	case in.Resource == "organisation_members":
		return Batch{}, errors.New("organisation_id: required for organisation_members, the organisation's id")
	case in.EntityID > 0:
		base = campaignPath(in.CampaignID, "/entities/"+strconv.FormatInt(in.EntityID, 10)+"/"+in.Resource)
	default:
		return Batch{}, errors.New("entity_id: required, the entity's id")
	}
	needID := func() (string, error) {
		if in.ID < 1 {
			return "", fmt.Errorf("%s: required for %s", idName, in.Action)
		}
		return base + "/" + strconv.FormatInt(in.ID, 10), nil
	}
	if readOnly && in.Action != "list" {
		return Batch{}, fmt.Errorf("action: %s can only be listed", in.Resource)
	}
	single := func(method, path string, body any) (Batch, error) {
		return s.batch(ctx, 1, in.IdempotencyKey, func(int) (answer, error) {
			key := ""
			if method != http.MethodGet {
				key = in.IdempotencyKey
			}
			return s.rest(ctx, method, path, q, body, key), nil
		}), nil
	}
	switch in.Action {
	case "list":
		if in.Page != 0 {
			q.Set("page", strconv.Itoa(in.Page))
		}
		p, err := page(s.rest(ctx, http.MethodGet, base, q, nil, ""), false)
		if err != nil {
			return Batch{}, err
		}
		var b Batch
		for i, r := range p.Records {
			b.add(ItemResult{Index: i, OK: true, Status: http.StatusOK, Record: r})
		}
		b.finish("")
		if p.NextCursor != "" {
			b.Note = fmt.Sprintf("Page %d of %d: ask for page %d for more.", p.Page, p.LastPage, p.Page+1)
		}
		return bounded(b, "read the list a page at a time")
	case "get":
		path, err := needID()
		if err != nil {
			return Batch{}, err
		}
		return single(http.MethodGet, path, nil)
	case "create":
		if in.Fields == nil {
			return Batch{}, errors.New("fields: required for create")
		}
		return single(http.MethodPost, base, in.Fields)
	case "update":
		path, err := needID()
		if err != nil {
			return Batch{}, err
		}
		if in.Fields == nil {
			return Batch{}, errors.New("fields: required for update")
		}
		return single(http.MethodPatch, path, in.Fields)
	case "delete":
		path, err := needID()
		if err != nil {
			return Batch{}, err
		}
		if !in.Confirm {
			return Batch{}, errors.New("confirm: must be true to delete; ask the user first")
		}
		return single(http.MethodDelete, path, nil)
	}
	return Batch{}, fmt.Errorf("action: %q is not one of list, get, create, update, delete", in.Action)
}

// maxDayRange bounds the day view's range in a tool call (the REST route's is 1000 days).
const maxDayRange = 31

func (s *Server) calendar(ctx context.Context, in calendarIn) (Batch, error) {
	if err := checkCampaign(in.CampaignID); err != nil {
		return Batch{}, err
	}
	if in.CalendarID < 1 {
		return Batch{}, errors.New("calendar_id: required, the calendar's id")
	}
	if err := checkKey(in.IdempotencyKey); err != nil {
		return Batch{}, err
	}
	base := campaignPath(in.CampaignID, "/calendars/"+strconv.FormatInt(in.CalendarID, 10))
	single := func(method, path string, q url.Values, body any, key string) Batch {
		return s.batch(ctx, 1, key, func(int) (answer, error) { return s.rest(ctx, method, path, q, body, key), nil })
	}
	switch in.Action {
	case "today":
		return single(http.MethodGet, base, nil, nil, ""), nil
	case "advance", "retreat":
		days := in.Days
		if days == 0 {
			days = 1
		}
		return single(http.MethodPost, base+"/"+in.Action, nil, map[string]any{"days": days}, in.IdempotencyKey), nil
	case "day":
		q := url.Values{}
		if in.From != "" {
			q.Set("from", in.From)
		}
		if in.To != "" {
			q.Set("to", in.To)
		}
		a := s.rest(ctx, http.MethodGet, base+"/days", q, nil, "")
		if !a.ok() {
			return Batch{}, a.restError()
		}
		e, err := a.envelope()
		if err != nil {
			return Batch{}, err
		}
		var days []json.RawMessage
		if err := json.Unmarshal(e.Data, &days); err != nil {
			return Batch{}, err
		}
		if len(days) > maxDayRange {
			return Batch{}, fmt.Errorf("to: at most %d days from from; ask for the rest in another call", maxDayRange)
		}
		var b Batch
		for i, d := range days {
			b.add(ItemResult{Index: i, OK: true, Status: http.StatusOK, Record: d})
		}
		b.finish("")
		return bounded(b, "ask for fewer days (to)")
	case "reminders":
		q := url.Values{}
		if in.Page != 0 {
			q.Set("page", strconv.Itoa(in.Page))
		}
		p, err := page(s.rest(ctx, http.MethodGet, base+"/reminders", q, nil, ""), false)
		if err != nil {
			return Batch{}, err
		}
		var b Batch
		for i, r := range p.Records {
			b.add(ItemResult{Index: i, OK: true, Status: http.StatusOK, Record: r})
		}
		b.finish("")
		if p.NextCursor != "" {
			b.Note = fmt.Sprintf("Page %d of %d: ask for page %d for more.", p.Page, p.LastPage, p.Page+1)
		}
		return bounded(b, "read the reminders a page at a time")
	}
	return Batch{}, fmt.Errorf("action: %q is not one of today, advance, retreat, day, reminders", in.Action)
}
