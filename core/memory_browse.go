package core

import (
	"context"
	"slices"
	"strings"
	"time"
)

// The memory page (DECISIONS.md, "The memory page") lists, searches and
// narrows memories across every scope, and scopes a room member's session
// to what they may see. These are its reads; its writes are the API's
// (PatchMemory, DeleteMemoryFor).

// Scopes the memory page filters by.
const (
	BrowseGlobal = "global"
	BrowseEntity = "entity"
	BrowseRoom   = "room"
)

// maxBrowseLimit bounds one page of the memory page.
const maxBrowseLimit = 200

// Browse selects memories for the memory page.
type Browse struct {
	Text          string // a hybrid search, as the API's (best matches, no paging)
	Scope         string // "", BrowseGlobal, BrowseEntity or BrowseRoom
	Source        string
	MinImportance int
	Since, Until  time.Time // Since <= timestamp < Until; zero: unbounded
	// Visible limits everything to one member's view; nil: all (operator).
	Visible *Visibility
	Limit   int
	Cursor  string
}

// BrowseResult is one page and the count of everything the browse selects
// (for a search: the count of the filter, not of the matches). AtLeast
// says the count stopped at maxCounted.
type BrowseResult struct {
	Items   []Memory
	Next    string
	Total   int
	AtLeast bool
}

// Counter counts documents (the memory page's totals), no further than
// limit when it is positive. Both backends count what List selects:
// SQLite in SQL, Chroma by reading ids, or metadata for the filters it
// cannot apply (docs/operators.md, "What differs on Chroma").
type Counter interface {
	Count(ctx context.Context, f Filter, limit int) (int, error)
}

// maxCounted bounds the count of a filter on the memories' metadata
// (source, importance, a member's view), which the store reads row by
// row: the exact number of a common filter would cost as much as reading
// every memory (make bench, BenchmarkMemoryPage).
const maxCounted = 1000

// ForgottenLister lists what was forgotten, from the memories' history:
// up to limit entries that took a memory away (deleted, expired,
// retired), newest first.
type ForgottenLister interface {
	Forgotten(ctx context.Context, limit int) ([]HistoryEntry, error)
}

func (b Browse) filter() (Filter, error) {
	f := Filter{Type: DocMemory, Source: strings.TrimSpace(b.Source), MinImportance: b.MinImportance,
		Since: b.Since, Until: b.Until, Visible: b.Visible}
	switch b.Scope {
	case "":
	case BrowseGlobal:
		f.Scopes = []string{ScopeGlobal}
	case BrowseEntity:
		f.AnyEntity = true
	case BrowseRoom:
		f.AnyRoom = true
	default:
		return f, Errorf(KindInvalid, "scope: must be global, entity or room")
	}
	if b.MinImportance != 0 {
		if err := checkImportance("importance", b.MinImportance); err != nil {
			return f, err
		}
	}
	return f, nil
}

// BrowseMemories lists memories newest first a page at a time, or with
// Text ranks them by the API's hybrid search (each with its Explain).
func (s *Service) BrowseMemories(ctx context.Context, b Browse) (BrowseResult, error) {
	if err := s.requireRAG(); err != nil {
		return BrowseResult{}, err
	}
	if b.Limit < 1 || b.Limit > maxBrowseLimit {
		return BrowseResult{}, Errorf(KindInvalid, "limit: must be 1..%d, got %d", maxBrowseLimit, b.Limit)
	}
	f, err := b.filter()
	if err != nil {
		return BrowseResult{}, err
	}
	var res BrowseResult
	limit := 0
	if f.Source != "" || f.MinImportance > 0 || f.Visible != nil {
		limit = maxCounted
	}
	if res.Total, err = s.store.Count(ctx, f, limit); err != nil {
		return BrowseResult{}, err
	}
	res.AtLeast = limit > 0 && res.Total >= limit
	now := s.now()
	if text := strings.TrimSpace(b.Text); text != "" {
		vec, err := s.embedOne(ctx, text)
		if err != nil {
			return BrowseResult{}, err
		}
		docs, err := s.searchRelevant(ctx, text, vec, relevantQuery{Filter: f, K: max(4*b.Limit, 20)})
		if err != nil {
			return BrowseResult{}, err
		}
		// The approximate vector search does not apply the narrowing
		// (Cond.Narrowing), and a member must never see more than their own.
		conds := f.Conds()
		docs = slices.DeleteFunc(docs, func(d relevantDoc) bool { return !AdmitsAll(conds, &d.Document) })
		res.Items = s.scoreMemories(docs, b.Limit, now, s.askedNow(text))
		return res, nil
	}
	if b.Cursor != "" {
		pos, err := decodeCursor(b.Cursor)
		if err != nil {
			return BrowseResult{}, err
		}
		f.Before = &pos
	}
	docs, err := s.store.List(ctx, f, b.Limit)
	if err != nil {
		return BrowseResult{}, err
	}
	res.Items = make([]Memory, 0, len(docs))
	conds := f.Conds()
	for _, d := range docs {
		if !expired(d, now) && AdmitsAll(conds, &d) {
			res.Items = append(res.Items, memoryFromDoc(d))
		}
	}
	if len(docs) == b.Limit {
		last := docs[len(docs)-1]
		res.Next = encodeCursor(Position{Time: last.Meta.Timestamp, ID: last.ID})
	}
	return res, nil
}

// Forgotten lists what was taken away from memory, newest first: when, how
// and why. The page shows no text (the history keeps it for the API).
// With a member's view, only what they could have seen.
func (s *Service) Forgotten(ctx context.Context, v *Visibility, limit int) ([]HistoryEntry, error) {
	hs, err := s.store.Forgotten(ctx, limit)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(hs, func(h HistoryEntry) bool { return v != nil && !v.Sees(h.Meta) }), nil
}

// ConversationRoom returns the Matrix room a conversation's turns came
// from ("" for an API conversation), so the page can scope members to it.
func (s *Service) ConversationRoom(ctx context.Context, id string) (string, error) {
	if !ValidConversationID(id) {
		return "", Errorf(KindNotFound, "conversation %s not found", id)
	}
	docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: id}, 1)
	if err != nil {
		return "", err
	}
	if len(docs) == 0 {
		return "", Errorf(KindNotFound, "conversation %s not found", id)
	}
	return docs[0].Meta.RoomID, nil
}

// maxRoomTurnsScanned bounds how many recent turns of a room
// RoomConversations reads to find its conversations.
const maxRoomTurnsScanned = 500

// RoomConversations lists the conversations of these rooms, newest first,
// from their recent turns (TurnCount counts the turns read). The preview
// is the first user message read, as RecentConversations' is the first.
func (s *Service) RoomConversations(ctx context.Context, rooms []string) ([]Conversation, error) {
	byID := map[string]*Conversation{}
	var out []*Conversation
	for _, room := range rooms {
		docs, err := s.store.List(ctx, Filter{Type: DocTurn, RoomID: room}, maxRoomTurnsScanned)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			c, ok := byID[d.Meta.ConversationID]
			if !ok {
				c = &Conversation{ID: d.Meta.ConversationID, Timestamp: d.Meta.Timestamp, RoomID: room}
				byID[c.ID] = c
				out = append(out, c)
			}
			c.TurnCount++
			if d.Meta.Role == "user" { // newest first: the last one read is the first
				c.Preview = d.Text
			}
		}
	}
	slices.SortFunc(out, func(a, b *Conversation) int { return b.Timestamp.Compare(a.Timestamp) })
	list := make([]Conversation, len(out))
	for i, c := range out {
		list[i] = *c
		list[i].Preview = FirstWords(c.Preview)
	}
	return list, nil
}

// MemberExport is everything Ada holds about one member: the memories told
// by or about them and the turns they wrote.
type MemberExport struct {
	UserID   string     `json:"user_id"`
	Memories []Memory   `json:"memories"`
	Turns    []Document `json:"turns"`
}

// maxExport bounds each list of an export.
const maxExport = 10000

// ExportMember gathers what Ada holds about userID (issue 30: a member
// downloads it from the memory page).
func (s *Service) ExportMember(ctx context.Context, userID string) (MemberExport, error) {
	// Only what they told or what is about them: what their rooms hold
	// belongs to the rooms, not to them (a view without rooms). The
	// stores apply the view (Visibility.Sees), as for the memory page.
	about := &Visibility{UserID: userID}
	out := MemberExport{UserID: userID, Memories: []Memory{}, Turns: []Document{}}
	mems, err := s.store.List(ctx, Filter{Type: DocMemory, Visible: about}, maxExport)
	if err != nil {
		return out, err
	}
	for _, d := range mems {
		out.Memories = append(out.Memories, memoryFromDoc(d))
	}
	turns, err := s.store.List(ctx, Filter{Type: DocTurn, Visible: about}, maxExport)
	if err != nil {
		return out, err
	}
	out.Turns = append(out.Turns, turns...)
	return out, nil
}

// FirstWords is the start of a text, for a list or a title.
func FirstWords(text string) string {
	const n = 120
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return string(r[:n]) + "…"
}
