package layout

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// NamesWidth is the number of entities (by entity id) one shard holds.
const NamesWidth = 400

func NameAttr(eid int64) string { return "e" + strconv.FormatInt(eid, 10) }

// NameValue is an entry's value: "<kind>#<child id>#<1 private, 0 not>#<lower-case name>", one
// string (a list would cost a type byte and a length per element).
func NameValue(kind string, childID int64, private bool, name string) string {
	p := "0"
	if private {
		p = "1"
	}
	return kind + "#" + strconv.FormatInt(childID, 10) + "#" + p + "#" + strings.ToLower(name)
}

// NameEntry is one entity's entry of the name shards.
type NameEntry struct {
	EntityID  int64
	Kind      string
	ChildID   int64
	IsPrivate bool
	NameLC    string
}

// NameEntries decodes a shard item; attributes that are not well-formed entries are skipped.
func NameEntries(it dynamo.Item) []NameEntry {
	var out []NameEntry
	for attr, v := range it {
		if !strings.HasPrefix(attr, "e") {
			continue
		}
		eid, err := strconv.ParseInt(attr[1:], 10, 64)
		sv, ok := v.(*types.AttributeValueMemberS)
		if err != nil || !ok {
			continue
		}
		parts := strings.SplitN(sv.Value, "#", 4)
		if len(parts) != 4 {
			continue
		}
		childID, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, NameEntry{EntityID: eid, Kind: parts[0], ChildID: childID, IsPrivate: parts[2] == "1", NameLC: parts[3]})
	}
	return out
}

// NameShards rebuilds the name shards from the entity homes a scan reads (the migration's
// recount): whole items, replacing whatever was there; shard items no entity fills are stale.
type NameShards struct {
	Shards map[ItemKey]dynamo.Item
	Seen   map[ItemKey]bool // shard items the scan met
}

// add takes one scanned item: an entity home becomes an entry, a shard item is noted.
func (n *NameShards) Add(pk, sk string, id, cid int64, typ string, childID int64, private bool, name string) {
	if n.Shards == nil {
		n.Shards, n.Seen = map[ItemKey]dynamo.Item{}, map[ItemKey]bool{}
	}
	if strings.HasPrefix(sk, NamesPrefix) {
		n.Seen[ItemKey{pk, sk}] = true
		return
	}
	if sk != RecordSK(EntityPrefix, id) || pk != CampaignPK(cid) {
		return
	}
	k := NamesKey(cid, id)
	it := n.Shards[k]
	if it == nil {
		it = dynamo.Item{"pk": AttrS(k.PK), "sk": AttrS(k.SK)}
		n.Shards[k] = it
	}
	it[NameAttr(id)] = AttrS(NameValue(typ, childID, private, name))
}

// items are the shards to put and the stale shard keys to delete.
func (n *NameShards) Items() ([]any, []dynamo.Keyed) {
	var puts []any
	var stale []dynamo.Keyed
	for _, it := range n.Shards {
		puts = append(puts, it)
	}
	for k := range n.Seen {
		if n.Shards[k] == nil {
			stale = append(stale, dynamo.Keys{k.PK, k.SK})
		}
	}
	return puts, stale
}
