// Package dendritetest runs a real, throw-away Dendrite Matrix homeserver for
// the bot's integration tests.
//
// Each call to Start launches its own dendrite process (about 1.5 s) with all
// state (SQLite databases, media, keys, log) in t.TempDir() and a fresh
// loopback port; the process group is killed in t.Cleanup. Servers are never
// shared implicitly: to amortise startup across many cases, call Start once in
// a parent test and run the cases as subtests against it, registering
// distinct users per subtest.
//
// The binaries are built by `make dendrite` (see mk/dendrite.mk) from the
// separate tools/dendrite module, because Dendrite is AGPL and must not be
// linked into Ada. They are looked up in $ADA_DENDRITE_BIN_DIR, else in
// <repo root>/.cache/dendrite/bin. If they are missing the test is skipped,
// except under CI=true where that is a failure so CI can never silently skip
// the Matrix integration tests.
//
// The server has no network access beyond 127.0.0.1: federation, identity
// servers, key perspectives and stats reporting are disabled. Open
// registration is off; users are created through the shared-secret admin API
// (RegisterUser, Client).
package dendritetest
