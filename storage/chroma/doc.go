// Package chroma implements core.Store on a Chroma server (HTTP API v2,
// Chroma 1.0), for deployments that outgrow one machine: several Ada
// replicas share one Chroma. Documents live in the collection
// "conversations" (cosine space), with Ada's own embeddings passed
// explicitly; memory history and the embedder record live in two small
// side collections, "conversations_history" and "conversations_meta".
//
// The client is our own (client.go): the Go clients for Chroma found
// (amikos-tech/chroma-go) target several server generations at once and
// bring an embedding-function layer Ada does not use; the few calls Ada
// needs are plain JSON and easy to test against the real server.
//
// Chroma has no transactions. Every multi-document write is ordered so
// that a failure half-way leaves nothing a reader misreads, and a retry
// (or the sweep at Open) completes it:
//   - documents are upserted (idempotent) before anything refers to them,
//     and before the documents they replace are deleted: a reader may see
//     the old and the new for a moment, never neither;
//   - history entries are written after the documents, with ids derived
//     from their content, so a retry writes them once;
//   - a deletion deletes the documents first, then the memories left
//     without any source (the cascade); a cascade cut short is completed
//     by the next deletion or the orphan sweep at Open.
//
// Forgetting follows the same rule as on SQLite: a history record of a
// memory that went keeps no words (its document text is blanked, its tags
// dropped), nor do the versions a correction retired once the newer
// memory goes (lifecycle.go, forgetChain). What the Chroma server keeps
// in its own files after a deletion (its SQLite, WAL and index segments)
// is the server's: Ada cannot scrub it; run Chroma on storage you trust.
package chroma
