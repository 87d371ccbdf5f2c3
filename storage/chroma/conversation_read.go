package chroma

import (
	"context"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
)

// conversationRead is every document of one conversation (its turns, its
// summaries, the memories it gave), with text, metadata and vector, as
// read for a read scope (core.WithReadScope). whole is false when the
// conversation holds more than scopeReadMax documents: its reads then
// ask Chroma each, as outside a scope.
type conversationRead struct {
	docs  []core.Document
	whole bool
	// deletions is s.vectors' count of this Ada's deletions when the read
	// began: a read older than a deletion is not used (inConversation).
	deletions uint64
}

// scopeReadMax is the most documents of a conversation a read scope
// reads whole: their texts and metadata (85 ms at 100k documents for
// 2,125, and 12 ms to decode), and the vectors conversationVectors does
// not hold. A longer one costs a chat its reads one by one, about a
// second at 2,000 turns (BenchmarkChromaChatRequests).
const scopeReadMax = 4000

// inConversation returns the documents of f, one conversation's, from the
// conversation read once for ctx's read scope (a chat's retrieval): its
// recent window, the searches of its turns and summaries and the
// neighbours of what they found are answered from one get, where each
// would cost a get of its own with the conversation's where clause
// (BenchmarkChromaChatRequests: 20–60 ms each for 400 turns at 100k
// documents). ok is false outside a scope, for a filter of no
// conversation, and for a conversation too large to read whole. The
// documents share their vectors with the read: they are not to be
// modified.
func (s *Store) inConversation(ctx context.Context, f core.Filter) (docs []core.Document, ok bool, err error) {
	if f.ConversationID == "" || !core.InReadScope(ctx) {
		return nil, false, nil
	}
	read, err := core.ReadOnce(ctx, "chroma "+s.docs+" conversation "+f.ConversationID, func() (conversationRead, error) {
		return s.readConversation(ctx, f.ConversationID)
	})
	// A read older than one of this Ada's deletions is not used: what
	// was forgotten during the chat is not recalled by it.
	if err != nil || !read.whole || read.deletions != s.vectors.deletionCount() {
		return nil, false, err
	}
	conds := f.Conds()
	for _, d := range read.docs {
		if core.AdmitsAll(conds, &d) {
			docs = append(docs, d)
		}
	}
	return docs, true, nil
}

// readConversation reads every document of the conversation id, when it
// holds at most scopeReadMax of them: their texts and metadata, then the
// vectors s.vectors does not hold, by id.
func (s *Store) readConversation(ctx context.Context, id string) (conversationRead, error) {
	now := time.Now()
	if s.vectors.isLong(id, now) {
		return conversationRead{}, nil
	}
	deletions := s.vectors.deletionCount()
	limit := s.scopeMax + 1
	got, err := s.c.getOnce(ctx, s.docs, getRequest{Where: map[string]any{"conversation_id": id}, Limit: &limit,
		Include: []string{"documents", "metadatas"}})
	if err != nil {
		return conversationRead{}, err
	}
	if len(got.IDs) > s.scopeMax {
		s.vectors.markLong(id, now)
		return conversationRead{}, nil
	}
	docs, err := documents(got)
	if err != nil {
		return conversationRead{}, err
	}
	missing := s.vectors.fill(id, docs, now)
	var ids []string
	for _, i := range missing {
		ids = append(ids, docs[i].ID)
	}
	vecs, err := s.vectorsOf(ctx, ids)
	if err != nil {
		return conversationRead{}, err
	}
	var fetched []core.Document
	for _, i := range missing {
		docs[i].Embedding = vecs[docs[i].ID]
		fetched = append(fetched, docs[i])
	}
	s.vectors.keep(id, fetched, deletions)
	// A document deleted between the two reads has no vector: it is left
	// out, as a read after the deletion would.
	docs = slices.DeleteFunc(docs, func(d core.Document) bool { return len(d.Embedding) == 0 })
	return conversationRead{docs: docs, whole: true, deletions: deletions}, nil
}

// listConversation is List from a conversation's read: the limit newest
// of docs (all of them for a negative limit), without their vectors.
func listConversation(docs []core.Document, limit int) []core.Document {
	sortNewestFirst(docs)
	if limit >= 0 {
		docs = docs[:min(limit, len(docs))]
	}
	for i := range docs {
		docs[i].Embedding = nil
	}
	return docs
}

// keywordInConversation is KeywordSearch's ranking over a conversation's
// read: the candidates are its documents, each term's frequency is
// counted among them (too common past maxTermDocs, as
// conversationCandidates counts), and the hits are complete already
// (rankBM25 keeps each candidate whole).
func (s *Store) keywordInConversation(docs []core.Document, stems []string, total, k int) []core.KeywordHit {
	ranked := rankBM25(docs, s.keptIn(docs, stems), max(total, len(docs)))
	return ranked[:min(k, len(ranked))]
}
