package layout

import (
	"fmt"
	"strings"
	"time"
)

const ImageGCPrefix = "IMAGEGC#"

const ImagePathRoot = "img/"

const ImageTimeFmt = "20060102T150405Z"

type ImageGCItem struct {
	PK   string `dynamo:"pk"`
	SK   string `dynamo:"sk"`
	CID  int64  `dynamo:"campaign_id"`
	Path string `dynamo:"path"`
}

func ImageGCPK(cid int64) string { return fmt.Sprintf("%s%02d", ImageGCPrefix, cid%PendingShards) }

func ImageGCKey(cid int64, due time.Time, path string) ItemKey {
	return ItemKey{ImageGCPK(cid), due.UTC().Format(PendingTimeFmt) + "#" + path}
}

// ImagePathTime is the upload time a path carries: img/<cid>/<time>-<random>.<ext>.
func ImagePathTime(cid int64, path string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(path, fmt.Sprintf("%s%d/", ImagePathRoot, cid))
	if !ok || len(rest) < len(ImageTimeFmt) {
		return time.Time{}, false
	}
	t, err := time.Parse(ImageTimeFmt, rest[:len(ImageTimeFmt)])
	return t, err == nil
}
