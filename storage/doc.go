// Package storage implements core.Store on one SQLite file with the sqlite-vec
// extension. It owns the schema (numbered, embedded migrations) and every SQL
// statement; the in-memory index its vector searches scan is storage/vecindex,
// which it loads from documents_codes and keeps in step with its commits. It
// may import core; it must not import apiserver, bot or cmd.
package storage
