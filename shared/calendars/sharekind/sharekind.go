// Package sharekind declares the calendars' share links to the kernel, apart from the family's
// storage and routes, so that every binary registers the kind (package kinds) and the audit
// knows its items.
package sharekind

import "github.com/lorekeep/lorekeep/shared/store"

// Kind is the share links' kind: the KIND of their keys (CAMPAIGN#c SHARELINK#id) and the name
// of their id sequence.
const Kind = "SHARELINK"

// A share link's count is a limit's (MaxPerCampaign); it keeps no partition of its own.
func init() { store.DeclareKind(store.FamilyKind{Prefix: Kind, LimitCount: true}) }

// MaxPerCampaign bounds a campaign's share links, so that a calendar's list is one Query.
const MaxPerCampaign = 100
