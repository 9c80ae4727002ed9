package httpapi

import (
	"strconv"
	"time"
)

// OptionsFromEnv reads RATE_LIMIT (requests per user per minute) and REQUEST_TIMEOUT (a Go
// duration, default DefaultTimeout) besides the given parts.
func OptionsFromEnv(getenv func(string) string, id Identifier, campaigns Campaigns) Options {
	n, _ := strconv.Atoi(getenv("RATE_LIMIT"))
	timeout, _ := time.ParseDuration(getenv("REQUEST_TIMEOUT"))
	return Options{Identify: id, Campaigns: campaigns, RateLimit: n, Now: time.Now, Timeout: timeout}
}
