package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/markdown"
)

// EntryFormatParam is the query parameter that makes every route of the API read and answer
// entries as Markdown (`entry_format=markdown`; `html`, the default, is Kanka's). A write's
// `entry` is converted to HTML before the route reads its body, so it is validated and
// sanitised exactly as an HTML entry; an answer's `entry` and `entry_parsed` are converted
// from the stored (sanitised) HTML as it is written, mentions kept as they are written.
const EntryFormatParam = "entry_format"

// EntryFields are the fields of a record that hold an entry.
var EntryFields = []string{"entry", "entry_parsed"}

type markdownKey struct{}

// withEntryFormat is r carrying the entry format its query asks for; an unknown one is a 422
// naming the parameter.
func withEntryFormat(r *Request) error {
	vals, ok := r.query[EntryFormatParam]
	if !ok {
		return nil
	}
	switch v := vals[len(vals)-1]; v {
	case "", "html":
		return nil
	case "markdown":
		r.Request = r.Request.WithContext(context.WithValue(r.Context(), markdownKey{}, true))
		return nil
	}
	return apperr.Invalid(EntryFormatParam, "The selected entry format is invalid: html or markdown.")
}

func wantsMarkdown(r *http.Request) bool { md, _ := r.Context().Value(markdownKey{}).(bool); return md }

// markdownInput converts a write's Markdown entry to HTML (decodeInput's caller, when the
// request asks for Markdown).
func markdownInput(r *http.Request, in domain.Input) error {
	if !wantsMarkdown(r) {
		return nil
	}
	s, ok := in["entry"].(string)
	if !ok {
		return nil // absent, null or not text: the route's validator names it
	}
	h, err := markdown.ToHTML(s)
	if err != nil {
		return apperr.Invalid("entry", "The entry must be valid Markdown.")
	}
	in["entry"] = h
	return nil
}

// markdownOutput is a success's body with the entries of its data (a record or a list of
// them) as Markdown, when the request asks for it.
func markdownOutput(r *http.Request, status int, body []byte) []byte {
	if status != http.StatusOK || !wantsMarkdown(r) {
		return body
	}
	members, ok := objectMembers(body)
	if !ok {
		return body
	}
	for i := range members {
		if members[i].key == "data" {
			members[i].value = markdownData(members[i].value)
		}
	}
	return appendMembers(make([]byte, 0, len(body)), members)
}

func markdownData(v json.RawMessage) json.RawMessage {
	switch {
	case len(v) > 0 && v[0] == '{':
		members, ok := objectMembers(v)
		if !ok {
			return v
		}
		for i, m := range members {
			if len(m.value) == 0 || m.value[0] != '"' {
				continue
			}
			for _, f := range EntryFields {
				if m.key != f {
					continue
				}
				var h string
				if json.Unmarshal(m.value, &h) != nil {
					break
				}
				if md, err := markdown.FromHTML(h); err == nil {
					members[i].value = AppendString(nil, md)
				}
			}
		}
		return appendMembers(make([]byte, 0, len(v)), members)
	case len(v) > 0 && v[0] == '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return v
		}
		out := append(make([]byte, 0, len(v)), '[')
		for i, it := range items {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, markdownData(it)...)
		}
		return append(out, ']')
	}
	return v
}
