package modules

import (
	"sort"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Trait is one of a character's traits: Kanka's appearance (section 1) or personality (2)
// entries, each a name and a plain-text entry, in its section's order.
type Trait struct {
	ID      int64
	Name    string
	Entry   string
	Section int
	Order   int
}

// The trait sections, by Kanka's ids (CharacterTrait::SECTION_*).
var traitSections = []struct {
	id   int
	name string
}{{1, "appearance"}, {2, "personality"}}

// Traits' bounds: a record's traits are stored with it, so they stay far inside DynamoDB's
// item size whatever the entry.
const (
	MaxTraits          = 100
	MaxTraitName       = 191
	MaxTraitEntry      = 1000
	MaxTraitBytes      = 32 << 10
	traitBoundsMessage = "A character has at most 100 traits, of 32 KiB in all."
)

// applyTraits reads Kanka's trait arrays: <section>_name and <section>_entry, whose keys are
// the ids of the traits kept (an object keyed by id, as Kanka's form sends) or positions of new
// ones (an array). Empty names are skipped; a section's order is its array's. A section left
// out keeps its traits, as every field left out keeps its value (Kanka's PUT drops them).
func applyTraits(r *Record, rd *domain.Reader, in domain.Input) {
	var next []Trait
	var maxID int64
	for _, t := range r.Traits {
		maxID = max(maxID, t.ID)
	}
	for _, sec := range traitSections {
		nameKey, entryKey := sec.name+"_name", sec.name+"_entry"
		names, ok := traitValues(rd, in, nameKey)
		if !ok { // left out, or refused (the reader holds the error): kept
			for _, t := range r.Traits {
				if t.Section == sec.id {
					next = append(next, t)
				}
			}
			continue
		}
		entries, _ := traitValues(rd, in, entryKey)
		kept := map[int64]Trait{}
		for _, t := range r.Traits {
			if t.Section == sec.id {
				kept[t.ID] = t
			}
		}
		order := 0
		for _, kv := range names {
			name := strings.TrimSpace(kv.value)
			if name == "" {
				continue
			}
			if len([]rune(name)) > MaxTraitName {
				rd.Fail(nameKey+"."+kv.key, "The :attribute must not be greater than "+strconv.Itoa(MaxTraitName)+" characters.")
				continue
			}
			entry := strings.TrimSpace(entries.get(kv.key))
			if len([]rune(entry)) > MaxTraitEntry {
				rd.Fail(entryKey+"."+kv.key, "The :attribute must not be greater than "+strconv.Itoa(MaxTraitEntry)+" characters.")
				continue
			}
			id, err := strconv.ParseInt(kv.key, 10, 64)
			if _, exists := kept[id]; err != nil || !kv.keyed || !exists {
				maxID++
				id = maxID
			}
			next = append(next, Trait{ID: id, Name: name, Entry: entry, Section: sec.id, Order: order})
			order++
		}
	}
	size := 0
	for _, t := range next {
		size += len(t.Name) + len(t.Entry)
	}
	if len(next) > MaxTraits || size > MaxTraitBytes {
		rd.Fail("personality_name", traitBoundsMessage)
		return
	}
	sort.SliceStable(next, func(i, j int) bool {
		if next[i].Section != next[j].Section {
			return next[i].Section < next[j].Section
		}
		return next[i].Order < next[j].Order
	})
	r.Traits = next
}

type traitValue struct {
	key, value string
	keyed      bool // the key is a trait id (an object's key), not a position
}

type traitList []traitValue

func (l traitList) get(key string) string {
	for _, kv := range l {
		if kv.key == key {
			return kv.value
		}
	}
	return ""
}

// traitValues reads an array (positions as keys) or an object (trait ids as keys, in key
// order) of strings; ok is false when the key was not sent or is refused.
func traitValues(rd *domain.Reader, in domain.Input, key string) (traitList, bool) {
	raw, sent := in[key]
	if !sent {
		return nil, false
	}
	var out traitList
	switch v := raw.(type) {
	case nil:
		return traitList{}, true
	case []any:
		if len(v) > MaxTraits {
			rd.Fail(key, traitBoundsMessage)
			return nil, false
		}
		for i, it := range v {
			s, ok := it.(string)
			if !ok && it != nil {
				rd.Fail(key+"."+strconv.Itoa(i), "The :attribute must be a string.")
				return nil, false
			}
			out = append(out, traitValue{key: strconv.Itoa(i), value: s})
		}
	case []string:
		if len(v) > MaxTraits {
			rd.Fail(key, traitBoundsMessage)
			return nil, false
		}
		for i, s := range v {
			out = append(out, traitValue{key: strconv.Itoa(i), value: s})
		}
	case map[string]any:
		if len(v) > MaxTraits {
			rd.Fail(key, traitBoundsMessage)
			return nil, false
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { // numeric keys in number order (Kanka's form order)
			a, ea := strconv.ParseInt(keys[i], 10, 64)
			b, eb := strconv.ParseInt(keys[j], 10, 64)
			if ea == nil && eb == nil {
				return a < b
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			s, ok := v[k].(string)
			if !ok && v[k] != nil {
				rd.Fail(key+"."+k, "The :attribute must be a string.")
				return nil, false
			}
			out = append(out, traitValue{key: k, value: s, keyed: true})
		}
	default:
		rd.Fail(key, "The :attribute must be an array.")
		return nil, false
	}
	return out, true
}

// traitJSON is a trait as Kanka answers it (CharacterTraitResource).
type traitJSON struct {
	ID           int64   `json:"id"`
	Name         string  `json:"name"`
	Entry        string  `json:"entry"`
	EntryParsed  *string `json:"entry_parsed"`
	SectionID    int     `json:"section_id"`
	Section      string  `json:"section"`
	DefaultOrder int     `json:"default_order"`
}

// renderTraits shapes a record's traits for reader a: personality traits are the admins' and
// the record's creator's unless is_personality_visible.
func renderTraits(rec *Record, a domain.Access) []traitJSON {
	out := []traitJSON{}
	showPersonality := rec.Flags["is_personality_visible"] || a.IsAdmin() || (a.UserID != 0 && a.UserID == rec.CreatedBy)
	for _, t := range rec.Traits {
		if t.Section == 2 && !showPersonality {
			continue
		}
		j := traitJSON{ID: t.ID, Name: t.Name, Entry: t.Entry, SectionID: t.Section, DefaultOrder: t.Order}
		for _, s := range traitSections {
			if s.id == t.Section {
				j.Section = s.name
			}
		}
		if t.Entry != "" {
			e := t.Entry
			j.EntryParsed = &e
		}
		out = append(out, j)
	}
	return out
}
