package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// fileMarker is the value of a form field that is a file (its content: Request.MultipartForm).
const fileMarker = "\x00file"

// IsFile reports whether v, an input value, is a file of the multipart body.
func IsFile(v any) bool { return v == fileMarker }

// FileFields are the fields that take a file (the images' `image`, Kanka's `file` upload): a
// multipart file part under any other name is read as that field's text.
var FileFields = map[string]bool{"image": true, "file": true}

// formName is the field a form key names: `tags` for `tags[]`, `settings` for `settings[a]`.
func formName(key string) string { name, _, _ := strings.Cut(key, "["); return name }

// fileText is the content of a multipart file part, as text (the body's bound bounds it).
func fileText(fh *multipart.FileHeader) (string, error) {
	f, err := fh.Open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxUploadBytes+1))
	return string(b), err
}

// MaxBodyBytes bounds every request body (413 beyond).
const MaxBodyBytes = 1 << 20

// The two limits of a body, each named where it applies: a multipart form is the only body
// that carries a file.
var (
	errTooLarge       = &apperr.Error{Code: apperr.ETooLarge, Message: "The request body must not be larger than 1 MiB (a multipart form with an image file: 4.25 MiB)."}
	errUploadTooLarge = &apperr.Error{Code: apperr.ETooLarge, Message: "A multipart request body must not be larger than 4.25 MiB: an image file of at most 4 MiB and the other fields."}
)

// bodyLimit is the largest body r may send, and the error past it.
func bodyLimit(r *http.Request) (int64, error) {
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media == "multipart/form-data" {
		return MaxUploadBytes, errUploadTooLarge
	}
	return MaxBodyBytes, errTooLarge
}

var errMedia = &apperr.Error{Code: apperr.EUnsupportedMedia, Message: "The request body must be JSON or a form."}

// decodeInput reads a write body: JSON (application/json or any +json type), a form
// (urlencoded or multipart; `field[]` makes a list) or, with no Content-Type, JSON when it looks
// like JSON. Empty strings become null, as Laravel's ConvertEmptyStringsToNull does for Kanka.
func decodeInput(r *http.Request) (domain.Input, error) {
	body, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		_, tooLarge := bodyLimit(r)
		return nil, tooLarge
	}
	if err != nil {
		return nil, apperr.Invalid("body", "The request body could not be read.")
	}
	ct := r.Header.Get("Content-Type")
	media, params, _ := mime.ParseMediaType(ct)
	trimmed := bytes.TrimSpace(body)
	switch {
	case ct == "" && len(trimmed) == 0:
		return domain.Input{}, nil
	case media == "application/json" || strings.HasSuffix(media, "+json") || (ct == "" && trimmed[0] == '{'):
		return decodeJSON(trimmed)
	case media == "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, apperr.Invalid("body", "The request body is not a valid form.")
		}
		return formInput(vals), nil
	case media == "multipart/form-data":
		r.Body = io.NopCloser(bytes.NewReader(body))
		if params["boundary"] == "" || r.ParseMultipartForm(MaxUploadBytes) != nil {
			return nil, apperr.Invalid("body", "The request body is not a valid form.")
		}
		vals := r.MultipartForm.Value
		for name, files := range r.MultipartForm.File {
			if FileFields[formName(name)] {
				continue
			}
			// A file part under a field that takes no file is that field's text, as if sent as a
			// form field (curl -F entry=@notes.html, FormData.append("entry", blob)): validated
			// like the field (UTF-8, length), within the body's bound.
			for _, fh := range files {
				text, err := fileText(fh)
				if err != nil {
					return nil, apperr.Invalid(formName(name), "The "+domain.Label(formName(name))+" could not be read.")
				}
				vals[name] = append(vals[name], text)
			}
		}
		in := formInput(vals)
		for name, files := range r.MultipartForm.File {
			if len(files) > 0 && FileFields[formName(name)] {
				in[name] = fileMarker // what images read; the fingerprint of a keyed write sees the file's size
				in[name+"#size"] = files[0].Size
			}
		}
		return in, nil
	}
	return nil, errMedia
}

func decodeJSON(body []byte) (domain.Input, error) {
	if len(body) == 0 {
		return domain.Input{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(markInvalidText(body)))
	dec.UseNumber()
	var in map[string]any
	if err := dec.Decode(&in); err != nil || in == nil {
		return nil, apperr.Invalid("body", "The request body must be a JSON object.")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apperr.Invalid("body", "The request body must be a single JSON object.")
	}
	for k, v := range in {
		if v == "" {
			in[k] = nil
		}
	}
	return domain.Input(in), nil
}

// markInvalidText rewrites each invalid UTF-8 byte and each lone surrogate escape ("\ud800")
// of a JSON body as "\u0000". encoding/json would decode both as U+FFFD, storing what was not
// sent; NUL is refused by every text validator with the same 422 as a form's invalid bytes, so
// the error names the field that holds it, and unknown fields stay ignored. A backslash is only
// valid inside a string, so the scan needs no string state: outside one the body stays invalid.
func markInvalidText(body []byte) []byte {
	if utf8.Valid(body) && !bytes.Contains(body, []byte(`\u`)) {
		return body
	}
	const nul = `\u0000`
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == 'u':
			r := escapedRune(body[i:])
			switch {
			case r >= 0xd800 && r < 0xdc00 && utf16.IsSurrogate(escapedRune(body[i+6:])) && escapedRune(body[i+6:]) >= 0xdc00:
				out = append(out, body[i:i+12]...) // a high and a low surrogate: one character
				i += 12
			case utf16.IsSurrogate(r):
				out = append(out, nul...)
				i += 6
			default:
				out = append(out, '\\', 'u')
				i += 2
			}
		case c == '\\' && i+1 < len(body):
			out = append(out, c, body[i+1])
			i += 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, nul...)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// escapedRune reads a `\uXXXX` escape at the start of b, or -1.
func escapedRune(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}

// formInput folds `name[]` and `name[i]` keys into lists under `name`, indexed keys in index
// order, and `name[key]` keys (PHP's nested fields: settings[collapsed],
// static_data[year_data][first_day]) into objects under `name`.
func formInput(vals url.Values) domain.Input { return formLevel(vals, 0) }

// maxFormDepth bounds how deep name[a][b]... nests; deeper brackets stay part of the key.
const maxFormDepth = 8

func formLevel(vals url.Values, depth int) domain.Input {
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return formKeyLess(keys[i], keys[j]) })
	in := domain.Input{}
	nested := map[string]url.Values{}
	for _, k := range keys {
		vs := vals[k]
		name, after, isList := strings.Cut(k, "[")
		if isList {
			key, rest, _ := strings.Cut(after, "]")
			if _, err := strconv.Atoi(key); key != "" && err != nil && depth < maxFormDepth {
				if nested[name] == nil {
					nested[name] = url.Values{}
				}
				nested[name][key+rest] = vs
				continue
			}
			prev, _ := in[name].([]string)
			in[name] = append(prev, vs...)
			continue
		}
		if len(vs) == 1 && vs[0] == "" {
			in[name] = nil
			continue
		}
		in[name] = vs
	}
	for name, sub := range nested {
		in[name] = map[string]any(formLevel(sub, depth+1)) // an object, as JSON decodes one
	}
	return in
}

// formKeyLess orders "a[2]" before "a[10]".
func formKeyLess(a, b string) bool {
	an, ai, _ := strings.Cut(a, "[")
	bn, bi, _ := strings.Cut(b, "[")
	if an != bn {
		return an < bn
	}
	x, errx := strconv.Atoi(strings.TrimSuffix(ai, "]"))
	y, erry := strconv.Atoi(strings.TrimSuffix(bi, "]"))
	if errx == nil && erry == nil {
		return x < y
	}
	return a < b
}

// Query reads the query parameters with the same rules as a form body, so list filters are
// validated like any input; tags=1,2 is a list, like tags[]=1&tags[]=2.
func (r *Request) Query() domain.Input { return queryInput(r.query) }

// QueryOf is the query of r as Request.Query reads it: for what a route reads ahead (Ahead),
// before the Request exists.
func QueryOf(r *http.Request) domain.Input { return queryInput(parseQuery(r.URL.RawQuery)) }

func queryInput(query url.Values) domain.Input {
	q := maps.Clone(query)
	if t := q.Get("tags"); strings.Contains(t, ",") {
		q["tags"] = strings.Split(t, ",")
	}
	return formInput(q)
}
