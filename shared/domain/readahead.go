package domain

// Read is a kind of read a route declares ahead, so that the campaign access read fetches it too
// (one round trip for a show, two for a list page). Each kind's reads are declared with its
// storage (store.RecordRead, ListRead, ChildRead, ChildListRead): which items a read fetches is
// the kernel's business (package store, readahead.go). 0 reads nothing.
type Read uint16

// Ref names one read ahead: its kind, the record's id and the parent it hangs from.
type Ref struct {
	Read   Read
	ID     int64
	Parent int64
}
