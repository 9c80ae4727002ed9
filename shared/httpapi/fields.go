package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// MaxFields bounds ?fields=.
const MaxFields = 100

var fieldName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// fields reads ?fields=a,b (or fields[]=a&fields[]=b): the keys of each record to return. Nil
// when absent or empty: every key.
func (r *Request) fields() ([]string, error) {
	raw := append([]string{}, r.query["fields[]"]...)
	if v := r.query.Get("fields"); v != "" {
		raw = append(raw, strings.Split(v, ",")...)
	}
	var out []string
	for _, f := range raw {
		if f = strings.TrimSpace(f); f == "" || slices.Contains(out, f) {
			continue
		}
		if !fieldName.MatchString(f) {
			return nil, apperr.Invalid("fields", "The fields must be a comma-separated list of field names.")
		}
		out = append(out, f)
	}
	if len(out) > MaxFields {
		return nil, apperr.Invalid("fields", "The fields must not have more than "+strconv.Itoa(MaxFields)+" items.")
	}
	return out, nil
}

// project keeps, in each record of a read's data, only the keys the client asked for with
// ?fields=, in the order asked; keys a record does not have are left out. Writes answer whole
// records. Data that is not a record or a list of records is left alone.
func (rp Reply) project(r *Request) (Reply, error) {
	if rp.doc != nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return rp, nil
	}
	keys, err := r.fields()
	if err != nil || keys == nil {
		return rp, err
	}
	raw, ok := appendRow(nil, rp.data)
	if !ok {
		if raw, err = encodeJSON(rp.data); err != nil { // as writeJSON: values go out as they are
			return rp, err
		}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for i, rec := range list {
			list[i] = pick(rec, keys)
		}
		rp.data = list
		return rp, nil
	}
	rp.data = pick(raw, keys)
	return rp, nil
}

func pick(rec json.RawMessage, keys []string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(rec, &m) != nil || m == nil {
		return rec
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(k)
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
