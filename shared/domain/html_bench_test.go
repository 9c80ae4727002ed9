package domain_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// BenchmarkEntryParsed prints what rendering one entry_parsed costs on the largest entries the
// limits allow (MaxEntryLength, MaxMentionLinks mentions of entities with the longest names):
// time and memory per entry, and the output's size (out-bytes) against the entry's (in-bytes).
func BenchmarkEntryParsed(b *testing.B) {
	long := strings.Repeat("n", domain.MaxNameLength)
	ents := map[int64]*domain.Entity{}
	for i := int64(1); i <= domain.MaxMentions; i++ {
		ents[i] = &domain.Entity{ID: i, CampaignID: 9007199254740991, Type: "location", ChildID: 9007199254740991, Name: long}
	}
	admin := domain.Access{UserID: 1, CampaignID: 1, Role: domain.RoleAdmin}
	fill := func(unit string) string { return strings.Repeat(unit, domain.MaxEntryLength/len(unit)) }
	for _, c := range []struct{ name, entry string }{
		{"paragraphs without mentions", fill("<p>Plain text of a long entry.</p>")},
		{"paragraphs with a mention each", fill("<p>Text and [location:1] there.</p>")[:domain.MaxEntryLength/2]},
		{"top-level mentions, the most allowed", strings.Repeat("[location:1] ", domain.MaxMentionLinks) + fill("x ")[:domain.MaxEntryLength/2]},
		{"mentions beyond the bound (stored before it)", fill("[location:1]")},
		{"511 nested elements with mentions", strings.Repeat("<b>", 511) + fill("[location:2] ")[:domain.MaxEntryLength/2]},
		{"nesting the tree builder refuses", fill("<div>") + "[location:1]"},
		{"a table per mention", fill("<table><tr><td>[location:3]</td></tr></table>")},
	} {
		stored := sanitize.HTML(c.entry)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var out string
			for i := 0; i < b.N; i++ {
				out = domain.RenderMentions(stored, ents, admin)
			}
			b.ReportMetric(float64(len(stored)), "in-bytes")
			b.ReportMetric(float64(len(out)), "out-bytes")
		})
	}
}
