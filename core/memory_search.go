package core

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// MaxMemoryLimit is the largest page of memories returned by one search.
const MaxMemoryLimit = 20

// DefaultSearchLimit is how many memories a search returns when the caller
// names no limit (GET /v1/memory?query=, MCP's search_memory).
const DefaultSearchLimit = 10

// MemoryPageResult is one page of memories. Next, set when a listing may
// continue, is the cursor of the following page.
type MemoryPageResult struct {
	Items []Memory
	Next  string
}

// MemoryPage finds memories by meaning (ranked, one page) or lists them
// newest first, a page at a time: with q.Cursor from the previous page's
// Next, a client walks every memory of the filter.
func (s *Service) MemoryPage(ctx context.Context, q MemoryQuery) (MemoryPageResult, error) {
	if err := s.requireRAG(); err != nil {
		return MemoryPageResult{}, err
	}
	if q.Limit < 1 || q.Limit > MaxMemoryLimit {
		return MemoryPageResult{}, Errorf(KindInvalid, "limit: must be 1..%d, got %d", MaxMemoryLimit, q.Limit)
	}
	if q.ConversationID != "" && !ValidConversationID(q.ConversationID) {
		return MemoryPageResult{}, Errorf(KindInvalid, "conversation_id: must have the form conv-<uuid>")
	}
	scopes, err := searchScopes(q.Scope, q.Entity)
	if err != nil {
		return MemoryPageResult{}, err
	}
	f := Filter{Type: DocMemory, Scopes: scopes, ConversationID: q.ConversationID, Tag: strings.TrimSpace(q.Tag)}
	if strings.TrimSpace(q.Text) != "" {
		if q.Cursor != "" {
			return MemoryPageResult{}, Errorf(KindInvalid, "cursor: only pages a listing; a search returns its best matches at once")
		}
		vec, err := s.embedOne(ctx, q.Text)
		if err != nil {
			return MemoryPageResult{}, err
		}
		items, err := s.rankMemories(ctx, q.Text, vec, f, q.Limit, 0, s.askedNow(q.Text))
		return MemoryPageResult{Items: items}, err
	}
	if q.Cursor != "" {
		pos, err := decodeCursor(q.Cursor)
		if err != nil {
			return MemoryPageResult{}, err
		}
		f.Before = &pos
	}
	docs, err := s.store.List(ctx, f, q.Limit)
	if err != nil {
		return MemoryPageResult{}, err
	}
	page := MemoryPageResult{Items: make([]Memory, 0, len(docs))}
	now := s.now()
	for _, d := range docs {
		if !expired(d, now) {
			page.Items = append(page.Items, memoryFromDoc(d))
		}
	}
	if len(docs) == q.Limit {
		last := docs[len(docs)-1]
		page.Next = encodeCursor(Position{Time: last.Meta.Timestamp, ID: last.ID})
	}
	return page, nil
}

// A cursor is the last listed memory's position, opaque to clients.
func encodeCursor(p Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Time.UnixNano(), 10) + ":" + p.ID))
}

func decodeCursor(c string) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	ts, id, ok := strings.Cut(string(raw), ":")
	n, perr := strconv.ParseInt(ts, 10, 64)
	if err != nil || !ok || perr != nil || !ValidDocID(id) {
		return Position{}, Errorf(KindInvalid, "cursor: is not a cursor this API returned (use the previous page's next)")
	}
	return Position{Time: time.Unix(0, n).UTC(), ID: id}, nil
}

// rankMemories takes the top max(4k, 20) candidates by relevance (above
// floor) and re-ranks them by their score (scoreMemories), with the times
// text names.
func (s *Service) rankMemories(ctx context.Context, text string, vec []float32, f Filter, k int, floor float64, asked askedTimes) ([]Memory, error) {
	docs, err := s.searchRelevant(ctx, text, vec, relevantQuery{Filter: f, K: max(4*k, 20), Floor: floor})
	if err != nil {
		return nil, err
	}
	return s.scoreMemories(docs, k, s.now(), asked), nil
}
