package core

import (
	"context"
	"slices"
	"time"
)

// DocumentStore keeps the documents of the collection: writes, reads and
// listings. Every write of one call is made, or none is (or, on a backend
// without transactions, a retry completes it).
type DocumentStore interface {
	// Put inserts or replaces documents in one transaction.
	Put(ctx context.Context, docs ...Document) error
	// Get returns one document, or a KindNotFound error.
	Get(ctx context.Context, id string) (Document, error)
	// Delete removes the document id if it has type t; KindNotFound otherwise.
	Delete(ctx context.Context, id string, t DocType) error
	// DeleteWhere removes every document matching f and says which went.
	DeleteWhere(ctx context.Context, f Filter) (Deleted, error)
	// Replace deletes every document matching f and inserts docs, in one transaction.
	Replace(ctx context.Context, f Filter, docs ...Document) error
	// Apply makes every write of c in one transaction and says which
	// documents its deletions took.
	Apply(ctx context.Context, c Change) (Deleted, error)
	// List returns up to limit documents matching f, newest first (ties by
	// id, descending).
	List(ctx context.Context, f Filter, limit int) ([]Document, error)
}

// Deleted is what a deletion took: the documents it was asked to delete
// (Apply: those of Change.Delete not written again in the same change, an
// id already gone among them; DeleteWhere: those matching), and the
// automatic memories the store deleted with them, their last source gone
// (Orphaned). Only the store knows the latter, and whoever keeps copies
// (ForgetListener) must hear of both.
type Deleted struct {
	IDs     []string
	Orphans []string
}

// All are the ids of every document that went.
func (d Deleted) All() []string { return append(slices.Clip(d.IDs), d.Orphans...) }

// VectorSearcher finds documents by similarity.
type VectorSearcher interface {
	// Search returns up to q.K documents nearest to q.Vector, nearest first.
	Search(ctx context.Context, q VectorQuery) ([]Hit, error)
}

// KeywordSearcher finds documents by their words.
type KeywordSearcher interface {
	// KeywordSearch returns up to q.K documents matching q.Text's words,
	// best BM25 first.
	KeywordSearch(ctx context.Context, q KeywordQuery) ([]KeywordHit, error)
}

// HistoryStore keeps the history of memories, which outlives them.
type HistoryStore interface {
	// History returns a memory's history, oldest first; it outlives the memory.
	History(ctx context.Context, memoryID string) ([]HistoryEntry, error)
	// PruneHistory blanks the text of the history entries of memories a
	// chat room caused to be stored, older than cutoff (retention): the
	// record that they existed and why they went stays, their words go.
	PruneHistory(ctx context.Context, cutoff time.Time) (int, error)
	// Retired returns the retire entries that still hold words and that
	// the forgetting covers (ForgetRequest.Covers): the last state of each
	// memory a correction replaced, which forgetting a person must reach
	// although the memory is no longer stored. A store may return more
	// (the caller applies Covers), never fewer.
	Retired(ctx context.Context, req ForgetRequest) ([]HistoryEntry, error)
	// ForgetHistory blanks the words (text and tags) of every history
	// entry of the given memories; the records and reasons stay.
	ForgetHistory(ctx context.Context, memoryIDs []string) error
}

// ConversationLister lists conversations.
type ConversationLister interface {
	// RecentConversations lists conversations by their newest turn, newest first.
	RecentConversations(ctx context.Context, limit int) ([]Conversation, error)
}

// StoreInfo describes the store for health and debug endpoints.
type StoreInfo interface {
	// Backend names the backend ("sqlite-vec", "chroma"), which health
	// reports even when the store does not answer.
	Backend() string
	// Stats reports counts and the embedder that wrote the vectors.
	Stats(ctx context.Context) (StoreStats, error)
	// Status checks that the store answers and names its version, without
	// counting (health's probe: one or two cheap requests on Chroma).
	Status(ctx context.Context) (StoreStatus, error)
}
