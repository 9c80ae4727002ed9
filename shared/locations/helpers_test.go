package locations_test

import (
	"encoding/json"
	"net/http"
)

func jsonDecode(res *http.Response, v any) error { return json.NewDecoder(res.Body).Decode(v) }
