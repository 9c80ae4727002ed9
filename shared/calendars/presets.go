package calendars

import (
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// presetJSON lists a ready-made calendar: POST calendars with {"preset": key} creates one.
type presetJSON struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// presets answers GET calendars/presets; no storage read beyond the campaign's access.
func (h handlers) presets(_ *httpapi.Request) (httpapi.Reply, error) {
	ps := calengine.Presets()
	out := make([]presetJSON, len(ps))
	for i, p := range ps {
		out[i] = presetJSON{Key: p.Key, Name: p.Name, Description: p.Description}
	}
	return httpapi.One(out), nil
}
