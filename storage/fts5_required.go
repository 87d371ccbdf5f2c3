//go:build !sqlite_fts5

package storage

// The store's keyword index is an SQLite FTS5 table, which mattn/go-sqlite3
// compiles in only with the sqlite_fts5 build tag. Without it every write
// would fail at run time ("no such module: fts5"), so the build fails here
// instead, naming the fix: build with -tags goolm,sqlite_fts5 (the Makefile
// sets GOFLAGS so).
var _ = ada_needs_the_build_tag_sqlite_fts5__use_make_or_GOFLAGS_tags_goolm_sqlite_fts5
