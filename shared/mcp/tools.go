package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// The bounds of a tool call, beside the REST routes' own (a page of at most 100 records, a body
// of at most 1 MiB for the whole /mcp request).
const (
	// MaxBatch is the most items one create, update or delete call takes.
	MaxBatch = 100
	// MaxGet is the most records one get_records call reads (each up to three REST requests).
	MaxGet = 25
	// MaxAnswerBytes bounds a tool's answer: past it the call says how to ask for less.
	MaxAnswerBytes = 1 << 20
	// maxKey leaves room in the 255 characters of an Idempotency-Key for an item's index.
	maxKey = 200
)

// Common arguments.
type campaignArg struct {
	CampaignID int64 `json:"campaign_id" jsonschema:"the campaign's id (list_campaigns)"`
}

type formatArg struct {
	EntryFormat string `json:"entry_format,omitempty" jsonschema:"how entries are written and read: markdown (the default) or html (Kanka's own format)"`
}

func (f formatArg) query(q url.Values) (url.Values, error) {
	if q == nil {
		q = url.Values{}
	}
	switch f.EntryFormat {
	case "", "markdown":
		q.Set(httpapi.EntryFormatParam, "markdown")
	case "html":
	default:
		return nil, fmt.Errorf("entry_format: %q is not a format; use markdown or html", f.EntryFormat)
	}
	return q, nil
}

func checkCampaign(id int64) error {
	if id < 1 {
		return errors.New("campaign_id: required, a campaign's id (at least 1); list_campaigns names them")
	}
	return nil
}

func checkKey(key string) error {
	if len(key) > maxKey {
		return fmt.Errorf("idempotency_key: at most %d characters", maxKey)
	}
	for _, c := range key {
		if c < 0x21 || c > 0x7e {
			return errors.New("idempotency_key: visible ASCII characters only")
		}
	}
	return nil
}

// itemKey is the Idempotency-Key of a batch's item i.
func itemKey(key string, i int) string {
	if key == "" {
		return ""
	}
	return key + "#" + strconv.Itoa(i)
}

// Page is one page of a list.
type Page struct {
	Records    []json.RawMessage `json:"records" jsonschema:"the page's records, in id order"`
	Page       int               `json:"page" jsonschema:"this page's number"`
	LastPage   int               `json:"last_page" jsonschema:"the number of the last page"`
	Total      int               `json:"total" jsonschema:"how many records the list holds for you"`
	Sync       string            `json:"sync,omitempty" jsonschema:"the server time of the read: the since of your next changes_since"`
	NextCursor string            `json:"next_cursor,omitempty" jsonschema:"absent on the last page; else pass it as cursor to read the next page"`
}

// ItemResult is the outcome of one item of a batch (or of one record of get_records).
type ItemResult struct {
	Index    int               `json:"index" jsonschema:"the item's position in the call, from 0"`
	OK       bool              `json:"ok" jsonschema:"whether this item succeeded"`
	Status   int               `json:"status" jsonschema:"the HTTP status the REST route answered (0: not attempted)"`
	Replayed bool              `json:"replayed,omitempty" jsonschema:"true when the idempotency key had already done this item: nothing was written again"`
	Record   json.RawMessage   `json:"record,omitempty" jsonschema:"the record as stored (a delete's: its id and deleted)"`
	Posts    []json.RawMessage `json:"posts,omitempty" jsonschema:"the record's posts (first page), when asked for"`
	Error    *restError        `json:"error,omitempty" jsonschema:"why the item failed"`
}

// Batch is a batch's outcome.
type Batch struct {
	Results   []ItemResult `json:"results" jsonschema:"one result per item, in the items' order"`
	Succeeded int          `json:"succeeded" jsonschema:"how many items succeeded"`
	Failed    int          `json:"failed" jsonschema:"how many items failed (or were not attempted)"`
	Note      string       `json:"note,omitempty" jsonschema:"what to do about the failed items"`
}

// One record, as a single REST answer.
type Record struct {
	Record json.RawMessage `json:"record" jsonschema:"the record as the REST API answers it"`
}

// page turns a list answer into a Page, trimmed when slim.
func page(a answer, slim bool) (Page, error) {
	if !a.ok() {
		return Page{}, a.restError()
	}
	e, err := a.envelope()
	if err != nil {
		return Page{}, err
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(e.Data, &rows); err != nil {
		return Page{}, fmt.Errorf("the REST answer is not a list: %w", err)
	}
	p := Page{Records: rows, Sync: e.Sync}
	if p.Records == nil {
		p.Records = []json.RawMessage{}
	}
	if slim {
		for i := range p.Records {
			p.Records[i] = slimmed(p.Records[i])
		}
	}
	if e.Meta != nil {
		p.Page, p.LastPage, p.Total = e.Meta.CurrentPage, e.Meta.LastPage, e.Meta.Total
	}
	if e.Links.Next != nil {
		if u, err := url.Parse(*e.Links.Next); err == nil {
			q := u.Query()
			q.Del(httpapi.EntryFormatParam)
			p.NextCursor = q.Encode()
		}
	}
	return p, nil
}

// cursorQuery is the query of a page: the cursor (a next_cursor), or the filters.
func cursorQuery(cursor string, base url.Values) (url.Values, error) {
	if cursor == "" {
		return base, nil
	}
	q, err := url.ParseQuery(cursor)
	if err != nil || len(cursor) > 2048 {
		return nil, errors.New("cursor: not a next_cursor this server gave; start again without it")
	}
	for k, v := range base { // the format and anything the call sets besides the cursor
		if q.Get(k) == "" {
			q[k] = v
		}
	}
	return q, nil
}

// slimKeep are the fields a slim record keeps, beside every *_id.
var slimKeep = map[string]bool{"id": true, "name": true, "type": true, "entity_type": true, "is_private": true, "tags": true,
	"updated_at": true, "date": true, "title": true, "child_id": true, "deleted_at": true, "visibility_id": true,
	"position": true, "current_date": true, "is_dead": true, "is_completed": true, "status_id": true}

// slimmed is a record without its entries, images and bookkeeping: what a model needs to pick
// records, not to read them.
func slimmed(rec json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(rec, &m) != nil {
		return rec
	}
	for k := range m {
		if !slimKeep[k] && !strings.HasSuffix(k, "_id") {
			delete(m, k)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return rec
	}
	return b
}

// bounded refuses an answer past MaxAnswerBytes, saying how to ask for less.
func bounded[T any](out T, how string) (T, error) {
	b, err := json.Marshal(out)
	if err == nil && len(b) > MaxAnswerBytes {
		var zero T
		return zero, fmt.Errorf("the answer would be %d bytes, more than %d: %s", len(b), MaxAnswerBytes, how)
	}
	return out, nil
}

// tool adds a tool whose schemas are inferred with the overrides of schema.go.
func tool[In, Out any](s *Server, name, title, desc string, enums map[string][]any, readOnly, destructive bool,
	h func(ctx context.Context, in In) (Out, error)) {
	t := &mcp.Tool{Name: name, Title: title, Description: desc,
		InputSchema: schemaFor[In](enums), OutputSchema: schemaFor[Out](nil),
		Annotations: &mcp.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: &destructive, OpenWorldHint: new(bool)}}
	if readOnly {
		t.Annotations.IdempotentHint = true
	}
	s.tools = append(s.tools, t)
	mcp.AddTool(s.server, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := h(ctx, in)
		return nil, out, err
	})
}

// Inputs.

type listCampaignsIn struct {
	Page int `json:"page,omitempty" jsonschema:"the page to read, from 1"`
}

type getCampaignIn struct {
	campaignArg
}

type searchIn struct {
	campaignArg
	Term string `json:"term" jsonschema:"the text to look for in names (at least 1 character)"`
	Page int    `json:"page,omitempty" jsonschema:"the page to read, from 1"`
	Slim bool   `json:"slim,omitempty" jsonschema:"answer only ids, names and types"`
}

type listIn struct {
	campaignArg
	formatArg
	Module  string            `json:"module" jsonschema:"the module to list (characters, locations...) or entities for every module's entities"`
	Filters map[string]string `json:"filters,omitempty" jsonschema:"the REST list's filters by name, e.g. {\"name\": \"Ald\", \"is_private\": \"true\", \"tags\": \"3\", \"parent_id\": \"9\"}"`
	Since   string            `json:"since,omitempty" jsonschema:"only records changed after this time (a sync or updated_at value)"`
	Related bool              `json:"related,omitempty" jsonschema:"include each record's attributes, relations, posts... (Kanka's related=1)"`
	Limit   int               `json:"limit,omitempty" jsonschema:"records per page, 1 to 100 (default 45)"`
	Page    int               `json:"page,omitempty" jsonschema:"the page to read, from 1"`
	Cursor  string            `json:"cursor,omitempty" jsonschema:"a next_cursor from the previous page: reads the next page (the other filters are then ignored)"`
	Slim    bool              `json:"slim,omitempty" jsonschema:"answer records without their entries, images and bookkeeping"`
}

type getItem struct {
	EntityID int64  `json:"entity_id,omitempty" jsonschema:"the record's entity id (any module); or give module and id"`
	Module   string `json:"module,omitempty" jsonschema:"the record's module, with id"`
	ID       int64  `json:"id,omitempty" jsonschema:"the record's id in its module, with module"`
}

type getIn struct {
	campaignArg
	formatArg
	Items   []getItem `json:"items" jsonschema:"the records to read, at most 25"`
	Posts   bool      `json:"posts,omitempty" jsonschema:"also read each record's posts (first page)"`
	Related bool      `json:"related,omitempty" jsonschema:"include attributes, relations, entity tags... (Kanka's related=1)"`
	Slim    bool      `json:"slim,omitempty" jsonschema:"answer records without their entries, images and bookkeeping"`
}

type createIn struct {
	campaignArg
	formatArg
	Module         string           `json:"module" jsonschema:"the module to create records in"`
	Items          []map[string]any `json:"items" jsonschema:"the records, at most 100, each with the REST create's fields: name (required), entry, type, is_private, tags, the module's own fields..."`
	IdempotencyKey string           `json:"idempotency_key,omitempty" jsonschema:"any unique text up to 200 visible ASCII characters: sending the same call with it again creates nothing twice"`
}

type updateIn struct {
	campaignArg
	formatArg
	Module         string           `json:"module" jsonschema:"the module of the records"`
	Items          []map[string]any `json:"items" jsonschema:"the changes, at most 100, each with the record's id and only the fields to change"`
	IdempotencyKey string           `json:"idempotency_key,omitempty" jsonschema:"any unique text up to 200 visible ASCII characters: sending the same call with it again changes nothing twice"`
}

type deleteIn struct {
	campaignArg
	Module         string  `json:"module" jsonschema:"the module of the records"`
	IDs            []int64 `json:"ids" jsonschema:"the records' ids in their module, at most 100"`
	Confirm        bool    `json:"confirm" jsonschema:"must be true: deletes move the records to the trash, where admins can restore them for 30 days"`
	IdempotencyKey string  `json:"idempotency_key,omitempty" jsonschema:"any unique text up to 200 visible ASCII characters"`
}

type postsIn struct {
	campaignArg
	formatArg
	EntityID       int64          `json:"entity_id" jsonschema:"the entity whose posts these are"`
	Action         string         `json:"action" jsonschema:"list, get, create, update or delete"`
	PostID         int64          `json:"post_id,omitempty" jsonschema:"the post (get, update, delete)"`
	Fields         map[string]any `json:"fields,omitempty" jsonschema:"create and update: name, entry, visibility_id, position, is_pinned..."`
	Page           int            `json:"page,omitempty" jsonschema:"list: the page to read, from 1"`
	Confirm        bool           `json:"confirm,omitempty" jsonschema:"delete: must be true"`
	IdempotencyKey string         `json:"idempotency_key,omitempty" jsonschema:"writes: any unique text up to 200 visible ASCII characters"`
}

type subIn struct {
	campaignArg
	formatArg
	EntityID       int64          `json:"entity_id,omitempty" jsonschema:"the entity the sub-resource belongs to (every resource but organisation_members)"`
	OrganisationID int64          `json:"organisation_id,omitempty" jsonschema:"organisation_members: the organisation's id (in its module)"`
	Resource       string         `json:"resource" jsonschema:"attributes, relations, entity_tags, entity_events, entity_notes, reminders, inventory, entity_abilities, organisation_members, mentions (list only) or ages (list only)"`
	Action         string         `json:"action" jsonschema:"list, get, create, update or delete"`
	ID             int64          `json:"id,omitempty" jsonschema:"the sub-resource's id (get, update, delete)"`
	Fields         map[string]any `json:"fields,omitempty" jsonschema:"create and update: the REST route's fields"`
	Page           int            `json:"page,omitempty" jsonschema:"list: the page to read, from 1"`
	Confirm        bool           `json:"confirm,omitempty" jsonschema:"delete: must be true"`
	IdempotencyKey string         `json:"idempotency_key,omitempty" jsonschema:"writes: any unique text up to 200 visible ASCII characters"`
}

type changesIn struct {
	campaignArg
	Since  string `json:"since" jsonschema:"the sync of your last read (at most 30 days ago): what changed and what left your view after it"`
	Cursor string `json:"cursor,omitempty" jsonschema:"a next_cursor of the previous answer: its next page"`
}

// Removal is a record that left the caller's view.
type Removal struct {
	ID        int64  `json:"id" jsonschema:"the entity's id"`
	Kind      string `json:"kind" jsonschema:"deleted, or hidden (made private or out of your view)"`
	RemovedAt string `json:"removed_at" jsonschema:"when"`
}

type changesOut struct {
	Changed    []json.RawMessage `json:"changed" jsonschema:"the entities (every module) created or changed after since, slim; get_records reads them whole"`
	Removed    []Removal         `json:"removed" jsonschema:"the entities deleted or hidden from you after since: drop them"`
	Sync       string            `json:"sync" jsonschema:"the server time of this read: keep the first page's as the since of your next changes_since"`
	NextCursor string            `json:"next_cursor,omitempty" jsonschema:"more changes: pass it as cursor (with the same since)"`
}

type calendarIn struct {
	campaignArg
	CalendarID     int64  `json:"calendar_id" jsonschema:"the calendar (list_records module calendars)"`
	Action         string `json:"action" jsonschema:"today (the current date), advance or retreat (move it), day (what falls on a range of days), reminders (events to come)"`
	Days           int    `json:"days,omitempty" jsonschema:"advance, retreat: days to move (1 to 1000000, default 1)"`
	From           string `json:"from,omitempty" jsonschema:"day: the first day Y-M-D (default today)"`
	To             string `json:"to,omitempty" jsonschema:"day: the last day Y-M-D (default from; at most 31 days)"`
	Page           int    `json:"page,omitempty" jsonschema:"reminders: the page to read, from 1"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"advance, retreat: any unique text up to 200 visible ASCII characters"`
}

func (s *Server) addTools() {
	mods := s.modules.enum()
	s.addReadTools(mods)
	s.addWriteTools(mods)
}

func (s *Server) addReadTools(mods []any) {
	tool(s, "list_campaigns", "List campaigns", "The campaigns you belong to, and public ones you follow: each with its id, name and your role.", nil, true, false,
		func(ctx context.Context, in listCampaignsIn) (Page, error) {
			q := url.Values{}
			if in.Page != 0 {
				q.Set("page", strconv.Itoa(in.Page))
			}
			return page(s.rest(ctx, http.MethodGet, "/api/1.0/campaigns", q, nil, ""), false)
		})
	tool(s, "get_campaign", "Describe a campaign", "One campaign: its name, entry, settings and your role in it.", nil, true, false,
		func(ctx context.Context, in getCampaignIn) (Record, error) {
			if err := checkCampaign(in.CampaignID); err != nil {
				return Record{}, err
			}
			return one(s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, ""), nil, nil, ""))
		})
	tool(s, "search", "Search a campaign", "Records of every module whose name matches term, that you may see.", nil, true, false,
		func(ctx context.Context, in searchIn) (Page, error) {
			if err := checkCampaign(in.CampaignID); err != nil {
				return Page{}, err
			}
			if strings.TrimSpace(in.Term) == "" {
				return Page{}, errors.New("term: required, the text to look for")
			}
			q := url.Values{}
			if in.Page != 0 {
				q.Set("page", strconv.Itoa(in.Page))
			}
			p, err := page(s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, "/search/"+url.PathEscape(in.Term)), q, nil, ""), in.Slim)
			if err != nil {
				return p, err
			}
			return bounded(p, "search again with slim: true")
		})
	tool(s, "list_records", "List records", "One page of a module's records you may see, filtered as the REST list is (name, type, is_private, tags, parent...), changed since a time, in id order. Follow next_cursor for the next page.",
		map[string][]any{"module": append(mods, "entities")}, true, false,
		func(ctx context.Context, in listIn) (Page, error) {
			if err := checkCampaign(in.CampaignID); err != nil {
				return Page{}, err
			}
			path := "/entities"
			if in.Module != "entities" {
				p, err := s.modules.path(in.Module)
				if err != nil {
					return Page{}, err
				}
				path = p
			}
			q, err := in.query(nil)
			if err != nil {
				return Page{}, err
			}
			for k, v := range in.Filters {
				switch k {
				case "page", "limit", "per_page", "lastSync", "deleted", httpapi.EntryFormatParam, "related":
					return Page{}, fmt.Errorf("filters: %q is an argument of its own, not a filter", k)
				}
				q.Set(k, v)
			}
			if in.Since != "" {
				q.Set("lastSync", in.Since)
			}
			if in.Related {
				q.Set("related", "1")
			}
			if in.Limit != 0 {
				if in.Limit < 1 || in.Limit > 100 {
					return Page{}, errors.New("limit: 1 to 100")
				}
				q.Set("limit", strconv.Itoa(in.Limit))
			}
			if in.Page != 0 {
				q.Set("page", strconv.Itoa(in.Page))
			}
			if q, err = cursorQuery(in.Cursor, q); err != nil {
				return Page{}, err
			}
			p, err := page(s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, path), q, nil, ""), in.Slim)
			if err != nil {
				return p, err
			}
			return bounded(p, "ask for fewer records (limit), or slim: true")
		})
	tool(s, "get_records", "Read records", "Records by entity id (any module) or by module and id, at most 25 per call, with their posts on request. One result per item.", nil, true, false,
		func(ctx context.Context, in getIn) (Batch, error) {
			if err := checkCampaign(in.CampaignID); err != nil {
				return Batch{}, err
			}
			if len(in.Items) == 0 || len(in.Items) > MaxGet {
				return Batch{}, fmt.Errorf("items: 1 to %d records", MaxGet)
			}
			q, err := in.query(nil)
			if err != nil {
				return Batch{}, err
			}
			if in.Related {
				q.Set("related", "1")
			}
			var b Batch
			for i, it := range in.Items {
				b.add(s.getOne(ctx, in, i, it, q))
			}
			b.finish("")
			return bounded(b, "ask for fewer items, without posts, or slim: true")
		})
	tool(s, "changes_since", "What changed since", "The entities created or changed, and those deleted or hidden from you, after since: one read of the records' sync pointers and the deletions' tombstones and marks (the REST delta, lastSync with removed=1), never guessed. Keep the answer's sync for the next call.", nil, true, false,
		func(ctx context.Context, in changesIn) (changesOut, error) {
			if err := checkCampaign(in.CampaignID); err != nil {
				return changesOut{}, err
			}
			if strings.TrimSpace(in.Since) == "" {
				return changesOut{}, errors.New("since: required, a time (a sync or updated_at value)")
			}
			if _, err := parseSince(in.Since); err != nil {
				return changesOut{}, err
			}
			q, err := cursorQuery(in.Cursor, url.Values{"lastSync": {in.Since}, "removed": {"1"}})
			if err != nil {
				return changesOut{}, err
			}
			a := s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, "/entities"), q, nil, "")
			if a.status == http.StatusGone {
				return changesOut{}, errors.New("since: more than 30 days ago, past what Lorekeep keeps of deletions; read the modules in full with list_records and keep its sync")
			}
			p, err := page(a, true)
			if err != nil {
				return changesOut{}, err
			}
			var body struct {
				Removed []Removal `json:"removed"`
			}
			if err := json.Unmarshal(a.body, &body); err != nil {
				return changesOut{}, err
			}
			out := changesOut{Changed: p.Records, Removed: body.Removed, Sync: p.Sync, NextCursor: p.NextCursor}
			if out.Removed == nil {
				out.Removed = []Removal{}
			}
			return bounded(out, "follow next_cursor")
		})
}

// parseSince accepts what the REST lastSync does, refusing what filters nothing, which an
// assistant would otherwise take for "nothing changed".
func parseSince(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("since: %q is not a time; send a sync value such as 2026-01-30T00:01:44.000000Z", v)
}

// getOne reads one item of get_records: its entity (when named by entity id), the record, its
// posts.
func (s *Server) getOne(ctx context.Context, in getIn, i int, it getItem, q url.Values) ItemResult {
	res := ItemResult{Index: i}
	fail := func(err error) ItemResult {
		res.Error = &restError{Status: http.StatusUnprocessableEntity, Message: err.Error()}
		return res
	}
	var path string
	entityID := it.EntityID
	switch {
	case it.EntityID > 0 && it.Module == "" && it.ID == 0:
		a := s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, "/entities/"+strconv.FormatInt(it.EntityID, 10)), nil, nil, "")
		if !a.ok() {
			res.Status, res.Error = a.status, a.restError()
			return res
		}
		var e struct {
			Data struct {
				Type    string `json:"type"`
				ChildID int64  `json:"child_id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(a.body, &e); err != nil {
			return fail(err)
		}
		p, err := s.modules.path(e.Data.Type)
		if err != nil {
			return fail(err)
		}
		path = p + "/" + strconv.FormatInt(e.Data.ChildID, 10)
	case it.EntityID == 0 && it.Module != "" && it.ID > 0:
		p, err := s.modules.path(it.Module)
		if err != nil {
			return fail(fmt.Errorf("items[%d].%w", i, err))
		}
		path = p + "/" + strconv.FormatInt(it.ID, 10)
	default:
		return fail(fmt.Errorf("items[%d]: give entity_id alone, or module and id", i))
	}
	a := s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, path), q, nil, "")
	res.Status = a.status
	if !a.ok() {
		res.Error = a.restError()
		return res
	}
	rec, err := one(a)
	if err != nil {
		return fail(err)
	}
	res.OK, res.Record = true, rec.Record
	if in.Slim {
		res.Record = slimmed(res.Record)
	}
	if in.Posts {
		if entityID == 0 {
			var r struct {
				EntityID int64 `json:"entity_id"`
			}
			_ = json.Unmarshal(rec.Record, &r)
			entityID = r.EntityID
		}
		pq := url.Values{}
		if v := q.Get(httpapi.EntryFormatParam); v != "" {
			pq.Set(httpapi.EntryFormatParam, v)
		}
		p, err := page(s.rest(ctx, http.MethodGet, campaignPath(in.CampaignID, "/entities/"+strconv.FormatInt(entityID, 10)+"/posts"), pq, nil, ""), in.Slim)
		if err != nil {
			var re *restError
			if errors.As(err, &re) {
				res.OK, res.Error = false, re
			} else {
				return fail(err)
			}
			return res
		}
		res.Posts = p.Records
	}
	return res
}

// one is a single record's answer.
func one(a answer) (Record, error) {
	if !a.ok() {
		return Record{}, a.restError()
	}
	e, err := a.envelope()
	if err != nil {
		return Record{}, err
	}
	if len(e.Data) == 0 || e.Data[0] != '{' {
		return Record{}, errors.New("the REST answer holds no record")
	}
	return Record{Record: e.Data}, nil
}

// add records one item's result.
func (b *Batch) add(r ItemResult) {
	b.Results = append(b.Results, r)
	if r.OK {
		b.Succeeded++
	} else {
		b.Failed++
	}
}

func (b *Batch) finish(key string) {
	if b.Results == nil {
		b.Results = []ItemResult{}
	}
	if b.Failed == 0 {
		return
	}
	b.Note = "Each failed item's error says why; fix those items and send them again."
	if key != "" {
		b.Note = "Each failed item's error says why. Sending the same call again with the same idempotency_key does the failed items and only replays the others."
	}
}
