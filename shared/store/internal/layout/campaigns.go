package layout

// Kinds of the membership ranges: the KIND of their keys and counters.
const (
	MemberKind   = "MEMBER"   // CAMPAIGN#c MEMBER#uid, counted by COUNT#MEMBER
	CampaignKind = "CAMPAIGN" // USER#uid CAMPAIGN#c, counted by COUNT#CAMPAIGN
)

// ClassAll counts a range that every reader of it sees whole (a campaign's members, a user's
// campaigns): no audience copies.
const ClassAll = "all"
