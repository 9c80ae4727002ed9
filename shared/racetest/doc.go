// Package racetest races related writes through the real HTTP handlers against DynamoDB Local
// and then checks the stored state itself (ops.Audit): no cycle, no dangling parent, no
// orphan child partition, counters equal to their items, no event on a missing calendar, no
// lost update. It holds tests only.
//
// Rounds per scenario: LOREKEEP_RACE_ROUNDS (default 4, the short run of `make test`);
// `make race-long` runs more.
//
// LOREKEEP_RACE_EXPECT_FAIL=<reason> turns broken invariants into logged, expected failures
// (the test then fails if it found none: the gate is stale). `make test` no longer sets it: the
// store's transactional writes have landed. Any 5xx answer (DynamoDB Local is up, so even a
// 503 is a bug, e.g. contention reported as an outage) and failures to set a round up always
// fail.
package racetest
