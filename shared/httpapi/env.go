package httpapi

import (
	"strconv"
	"time"
)

// OptionsFromEnv reads RATE_LIMIT (requests per user in any 60 seconds),
// TRUST_FORWARDED_HEADERS ("true" or "1": behind a proxy that sets X-Forwarded-Proto and
// X-Forwarded-Host itself) and REQUEST_TIMEOUT (a Go duration, default DefaultTimeout) besides
// the given parts.
func OptionsFromEnv(getenv func(string) string, id Identifier, campaigns Campaigns) Options {
	n, _ := strconv.Atoi(getenv("RATE_LIMIT"))
	trust, _ := strconv.ParseBool(getenv("TRUST_FORWARDED_HEADERS"))
	timeout, _ := time.ParseDuration(getenv("REQUEST_TIMEOUT"))
	return Options{Identify: id, Campaigns: campaigns, RateLimit: n, TrustForwardedHeaders: trust, Now: time.Now, Timeout: timeout,
		ImageBaseURL: getenv("IMAGE_BASE_URL")}
}
