package domain

// Limits every record's fields share (Kanka's column sizes; an entry is bounded by DynamoDB's
// item size). A family's own limits stay beside its record.
const (
	MaxNameLength  = 191
	MaxEntryLength = 200_000
	MaxURLLength   = 2048
	MaxTags        = 20 // each a link written in the record's transaction (DESIGN 3.3)
	// MaxRefs bounds the references a record holds by one field (a character's races).
	MaxRefs = 100
)
