package store

// The kind table: every record kind the store keeps, one row each. Everything that used to list
// kinds by hand (owners, synced lists, counted ranges, the migration's and the audit's
// placement of homes, mentions' sources, ?deleted=1 lists) reads this table, so adding a kind is
// adding a row (plus its item type and its family's routes).
