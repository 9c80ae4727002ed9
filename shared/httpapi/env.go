package httpapi

import (
	"strconv"
	"time"
)

// OptionsFromEnv reads RATE_LIMIT (requests per user per minute) besides the given parts.
func OptionsFromEnv(getenv func(string) string, id Identifier, campaigns Campaigns) Options {
	n, _ := strconv.Atoi(getenv("RATE_LIMIT"))
	return Options{Identify: id, Campaigns: campaigns, RateLimit: n, Now: time.Now}
}
