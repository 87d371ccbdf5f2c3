// Package vecindex is the in-memory index of the vectors' binary codes that
// the SQLite store's vector searches scan for candidates: Quantize turns a
// vector into its code (a SimHash of a randomised Hadamard rotation), and an
// Index holds every stored document's code with the fields a search filters
// on (type, scope, conversation). The store keeps the codes' durable copy,
// loads the index from it and gives it every committed write; the index
// knows nothing of SQL. It imports nothing of Ada.
package vecindex
