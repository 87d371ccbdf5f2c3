// Package jsonl owns the file format of `ada export` and `ada import`:
// JSON Lines, a header line and then one line per document or memory
// history entry. It reads and writes core's types and knows no backend, so
// that any store can be written out and read back in. It may import core
// only.
package jsonl
