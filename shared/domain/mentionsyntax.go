package domain

import "regexp"

// MentionSyntax is the pattern of a mention in an entry's text, `[character:12]` or
// `[character:12|Alias]`: what converters of an entry's format keep as it is.
func MentionSyntax() *regexp.Regexp { return mentionPattern }
