package layout

import (
	"slices"
	"strconv"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// References between records (store/refs.go). A record's references are kept on its home,
//
//	refs: [{f field, e target entity, t target type, i target id, p private, h hidden}]
//
// (its public copy without the private ones: CopyItem), and each (target, referrer, field) has
// a link in the target's entity partition, which finds the referrers when the target changes:
//
//	CAMPAIGN#c#ENTITY#<target eid>   REFBY#<referrer eid>#<field>   (kind, id, from_private, from_hidden)
const RefByPrefix = "REFBY#"

// RefAttr is one reference as a home keeps it.
type RefAttr struct {
	Field    string         `dynamo:"f"`
	EntityID int64          `dynamo:"e"`
	Type     string         `dynamo:"t"`
	ID       int64          `dynamo:"i"`
	Private  bool           `dynamo:"p,omitempty"`
	Hidden   bool           `dynamo:"h,omitempty"`
	Data     map[string]any `dynamo:"d,omitempty"`
	Key      int64          `dynamo:"k,omitempty"`
}

func RefAttrs(refs []domain.Reference) []RefAttr {
	if len(refs) == 0 {
		return nil
	}
	out := make([]RefAttr, len(refs))
	for i, r := range refs {
		out[i] = RefAttr{Field: r.Field, EntityID: r.EntityID, Type: r.Type, ID: r.ID, Private: r.Private, Hidden: r.Hidden, Data: r.Data, Key: r.Key}
	}
	return out
}

func DomainRefs(attrs []RefAttr) []domain.Reference {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]domain.Reference, len(attrs))
	for i, a := range attrs {
		out[i] = domain.Reference{Field: a.Field, EntityID: a.EntityID, Type: a.Type, ID: a.ID, Private: a.Private, Hidden: a.Hidden, Data: a.Data, Key: a.Key}
	}
	return out
}

// RefLinkKey is the link of referrer entity from's reference by field to entity target (and,
// for a row, its key: REFBY#<from>#<field>#<key>).
func RefLinkKey(cid, target, from int64, field string, key int64) ItemKey {
	sk := RefByPrefix + Pad(from) + "#" + field
	if key != 0 {
		sk += "#" + Pad(key)
	}
	return ItemKey{EntityPK(cid, target), sk}
}

// RefLink is a reference's link in its target's partition: the referrer's kind and id (its
// home's key), its entity and whether it is private (a reverse read answers non-admins only
// the public referrers).
type RefLink struct {
	PK          string `dynamo:"pk"`
	SK          string `dynamo:"sk"`
	Field       string `dynamo:"field"`
	Kind        string `dynamo:"kind"`
	ID          int64  `dynamo:"id"`
	EntityID    int64  `dynamo:"entity_id"`
	FromPrivate bool   `dynamo:"from_private"`
	// FromHidden: the referrer is in the trash (reverse reads leave it out).
	FromHidden bool `dynamo:"from_hidden,omitempty"`
	// Data and Key: the reference's (Reference.Data, Reference.Key), for the reverse reads.
	Data map[string]any `dynamo:"data,omitempty"`
	Key  int64          `dynamo:"key,omitempty"`
}

// RefTarget is a reference's target and field, as a tombstone keeps them for the cascade that
// removes the links.
type RefTarget struct {
	EntityID int64  `dynamo:"e"`
	Field    string `dynamo:"f"`
	Key      int64  `dynamo:"k,omitempty"`
}

// RefTargetsOf are the distinct links of refs.
func RefTargetsOf(refs []RefAttr) []RefTarget {
	var out []RefTarget
	seen := map[RefTarget]bool{}
	for _, r := range refs {
		t := RefTarget{EntityID: r.EntityID, Field: r.Field, Key: r.Key}
		if r.EntityID == 0 { // a free row: no link
			continue
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// RefKeysAttr is the index of the references an item shows (a string set), which list
// filters match: RefKey(field, target type, module id) and RefEntityKey(field, entity id) of
// each.
const RefKeysAttr = "ref_keys"

func RefKey(field, typ string, id int64) string {
	return field + "#" + typ + "#" + strconv.FormatInt(id, 10)
}
func RefEntityKey(field string, eid int64) string { return field + "@" + strconv.FormatInt(eid, 10) }

// RefKeysOf is the index of refs: the references not hidden (nil for none).
func RefKeysOf(refs []RefAttr) []string {
	var out []string
	for _, r := range refs {
		if !r.Hidden && r.EntityID != 0 {
			for _, k := range []string{RefKey(r.Field, r.Type, r.ID), RefEntityKey(r.Field, r.EntityID)} {
				if !slices.Contains(out, k) { // a set: rows may name one target twice
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// PublicRefs are the references a public copy keeps: not private.
func PublicRefs(refs []RefAttr) []RefAttr {
	var out []RefAttr
	for _, r := range refs {
		if !r.Private {
			out = append(out, r)
		}
	}
	return out
}

// ProjectRefs leaves the private references, and their index, out of a public copy.
func ProjectRefs(item dynamo.Item) {
	raw, ok := item["refs"]
	if !ok {
		return
	}
	var refs []RefAttr
	if err := dynamo.Unmarshal(raw, &refs); err != nil {
		return
	}
	delete(item, "refs")
	delete(item, RefKeysAttr)
	kept := PublicRefs(refs)
	if len(kept) == 0 {
		return
	}
	if av, err := dynamo.Marshal(kept); err == nil {
		item["refs"] = av
	}
	if keys := RefKeysOf(kept); len(keys) > 0 {
		if av, err := dynamo.Marshal(keys); err == nil {
			item[RefKeysAttr] = av
		}
	}
}
