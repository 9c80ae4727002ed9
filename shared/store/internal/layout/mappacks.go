package layout

import (
	"encoding/json"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	LayersSK = "LAYERS"
	GroupsSK = "GROUPS"
)

type PackItem struct {
	PK      string `dynamo:"pk"`
	SK      string `dynamo:"sk"`
	Version int64  `dynamo:"v"`
	Seq     int64  `dynamo:"seq"`
	Items   string `dynamo:"items"`
	Gone    string `dynamo:"gone,omitempty"`
}

func DecodePack[T any](raw dynamo.Item) (*domain.MapPack[T], error) {
	out := &domain.MapPack[T]{Items: []T{}}
	if raw == nil {
		return out, nil
	}
	var it PackItem
	if err := dynamo.UnmarshalItem(raw, &it); err != nil {
		return nil, err
	}
	out.Version, out.Seq = it.Version, it.Seq
	if err := json.Unmarshal([]byte(it.Items), &out.Items); err != nil {
		return nil, err
	}
	if it.Gone != "" {
		if err := json.Unmarshal([]byte(it.Gone), &out.Gone); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LayerImages are the stored pictures of layers.
func LayerImages(ls []domain.MapLayer) map[string]bool {
	out := map[string]bool{}
	for _, l := range ls {
		if l.ImagePath != "" {
			out[l.ImagePath] = true
		}
	}
	return out
}

// HeldPackImages adds the stored pictures the packs among items hold to held (for the audit).
func HeldPackImages(items []dynamo.Item, held map[string]string) {
	for _, it := range items {
		if k := KeyOfItem(it); k.SK == LayersSK {
			p, err := DecodePack[domain.MapLayer](it)
			if err != nil {
				continue // auditMapPacks reports it
			}
			for path := range LayerImages(p.Items) {
				held[path] = k.PK + " " + k.SK
			}
		}
	}
}
