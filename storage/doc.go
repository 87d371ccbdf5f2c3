// Package storage implements core.Store on one SQLite file with the sqlite-vec
// extension. It owns the schema (numbered, embedded migrations) and every SQL
// statement. It may import core; it must not import apiserver, bot or cmd.
package storage
