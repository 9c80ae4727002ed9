package layout

import (
	"strconv"
	"strings"
)

const MarkerInPrefix = "MARKIN#"

// MarkerInItem is a marker's pointer in its entity's partition.
type MarkerInItem struct {
	PK    string `dynamo:"pk"`
	SK    string `dynamo:"sk"`
	MapID int64  `dynamo:"map_id"`
	ID    int64  `dynamo:"id"`
}

func MarkerInKey(cid, eid, mid, id int64) ItemKey {
	return ItemKey{EntityPK(cid, eid), MarkerInPrefix + Pad(mid) + "#" + Pad(id)}
}

// MarkerInOf parses a pointer's sort key: the map and marker ids.
func MarkerInOf(sk string) (mid, id int64, ok bool) {
	a, b, found := strings.Cut(strings.TrimPrefix(sk, MarkerInPrefix), "#")
	if !found || !strings.HasPrefix(sk, MarkerInPrefix) {
		return 0, 0, false
	}
	mid, err1 := strconv.ParseInt(a, 10, 64)
	id, err2 := strconv.ParseInt(b, 10, 64)
	return mid, id, err1 == nil && err2 == nil
}
