package layout

// Version is the key layout this store reads and writes. Version 1 (before audience
// ranges) kept each record once and counted locations, calendars and map points in `n` and
// `private`; version 2 added audience ranges (the package doc). Version 3 splits every range
// counter into a total and segments (counters.go) and drops the location counter's private_ids
// (a location's public copy is the non-admins' projection instead); it links every event from
// its calendar (calendarlinks.go) instead of indexing it in GSI1 and EVENTLINK#; it adds Kanka's
// campaign, profile and membership fields and counts memberships (migrate_campaigns.go); it adds
// the sync pointers (SYNC#, written by the migration for every record) and tombstones (GONE#,
// written by deletes); it adds the name shards (rebuilt whole by the recount) and the reverse
// mention items (written from every entry by the rewrite), and the tags' member packs (rebuilt
// whole by the recount, tagpacks.go).
const Version = 3
