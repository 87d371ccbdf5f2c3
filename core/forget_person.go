package core

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ForgetRequest asks to forget a person (`!ada forget me`, `!ada forget
// @user`, DELETE /v1/memory?entity=...) or a room the bridge left.
type ForgetRequest struct {
	// Entity is a Matrix user id (a room member), a Matrix room id (all
	// the room stored) or, for API users, a memory entity name.
	Entity string
	// RoomID limits the forgetting to what one room caused to be stored;
	// empty is everywhere.
	RoomID string
	// Reason goes into the history of the memories deleted.
	Reason string
	// At is when the forgetting was asked (a room command's time); zero
	// is now. What a Matrix user said until then is forgotten, also where
	// it reaches the bridge later (ForgetListener.PersonForgotten).
	At time.Time
}

// ForgetResult counts what went.
type ForgetResult struct {
	// Turns are the person's turns and Ada's answers to them.
	Turns int `json:"turns"`
	// Memories are those in the entity's scope, told by the person, or
	// about them (subject_user_id); an automatic memory learned from their
	// turns and another's goes only with the last of those.
	Memories int `json:"memories"`
	// Summaries covered a deleted turn; they are rewritten in the
	// background without it.
	Summaries int `json:"summaries"`
}

// forgetPage is how many documents one pass of Forget reads.
const forgetPage = 500

// defaultForgetReason is the history's reason when the caller gives none.
const defaultForgetReason = "forgotten on request: everything about a person"

// Forget deletes what Ada holds from and about a person (DECISIONS.md,
// forgetting): the turns they spoke (a Matrix user id) with Ada's answers
// to them, and an API user's conversations (the turns of their entity),
// and with those the automatic memories drawn only from them and the
// summaries that covered them (rewritten without them); the memories of
// their entity scope, those they told and those whose subject they are;
// and the words of the versions of such memories that a correction
// retired. Each memory's history records the deletion and the reason,
// never its text. It uses only the store's filtered listing, so any Store can serve it.
func (s *Service) Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error) {
	if err := s.requireRAG(); err != nil {
		return ForgetResult{}, err
	}
	req.Entity = strings.TrimSpace(req.Entity)
	if req.Entity == "" {
		return ForgetResult{}, Errorf(KindInvalid, "entity: required")
	}
	if len([]rune(req.Reason)) > maxDeleteReason {
		return ForgetResult{}, Errorf(KindInvalid, "reason: must be at most %d characters", maxDeleteReason)
	}
	if req.Reason == "" {
		req.Reason = defaultForgetReason
	}
	// The memories first, so that those learned from the person's turns
	// are counted (the turns' deletion would take them silently).
	n, err := s.forgetMemories(ctx, req)
	res := ForgetResult{Memories: n}
	if err == nil {
		err = s.forgetRetired(ctx, req)
	}
	if err == nil && req.RoomID == "" {
		err = s.forgetEntityTurns(ctx, req, &res)
	}
	switch {
	case err != nil:
		return res, err
	case matrixUserID.MatchString(req.Entity):
		err = s.forgetTurns(ctx, req, &res)
		if err == nil && s.forgot != nil {
			at := req.At
			if at.IsZero() {
				at = s.now()
			}
			err = s.forgot.PersonForgotten(ctx, req.Entity, req.RoomID, at)
		}
		return res, err
	case matrixRoomID.MatchString(req.Entity):
		err = s.forgetRoom(ctx, req.Entity, &res)
		if err == nil && s.forgot != nil {
			err = s.forgot.RoomForgotten(ctx, req.Entity)
		}
		return res, err
	}
	return res, nil
}

// matrixRoomID is the shape of a Matrix room id.
var matrixRoomID = regexp.MustCompile(`^![^:]+:.+$`)

// forgetRoom deletes the turns and summaries a room caused to be stored
// (the bridge left it with ROOM_DATA_ON_LEAVE=purge); its memories went
// first, with their history.
func (s *Service) forgetRoom(ctx context.Context, room string, res *ForgetResult) error {
	turns, err := s.deleteWhere(ctx, Filter{Type: DocTurn, RoomID: room})
	res.Turns += turns
	if err != nil {
		return err
	}
	sums, err := s.deleteWhere(ctx, Filter{Type: DocSummary, RoomID: room})
	res.Summaries += sums
	return err
}

// forgetTurns deletes the person's turns and the answers to them, one
// change per conversation.
func (s *Service) forgetTurns(ctx context.Context, req ForgetRequest, res *ForgetResult) error {
	byConv := map[string][]Document{}
	err := s.eachDocument(ctx, Filter{Type: DocTurn, RoomID: req.RoomID, AnyRoom: req.RoomID == ""}, func(d Document) {
		if d.Meta.UserID == req.Entity && d.Meta.Role == "user" {
			byConv[d.Meta.ConversationID] = append(byConv[d.Meta.ConversationID], d)
		}
	})
	if err != nil {
		return err
	}
	for conv, turns := range byConv {
		var next []int
		for _, t := range turns {
			if t.Meta.TurnIndex != nil {
				next = append(next, *t.Meta.TurnIndex+1)
			}
		}
		answers, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: conv, TurnIndexes: next}, len(next))
		if err != nil {
			return err
		}
		for _, a := range answers {
			if a.Meta.Role == "assistant" {
				byConv[conv] = append(byConv[conv], a)
			}
		}
	}
	return s.deleteTurnsOf(ctx, byConv, req.Reason, res)
}

// forgetEntityTurns deletes the turns of the entity's conversations (an
// API or front-end user's, saveTurns), with what was drawn from them, one
// change per conversation.
func (s *Service) forgetEntityTurns(ctx context.Context, req ForgetRequest, res *ForgetResult) error {
	byConv := map[string][]Document{}
	err := s.eachDocument(ctx, Filter{Type: DocTurn, Scopes: []string{EntityScope(req.Entity)}}, func(d Document) {
		byConv[d.Meta.ConversationID] = append(byConv[d.Meta.ConversationID], d)
	})
	if err != nil {
		return err
	}
	return s.deleteTurnsOf(ctx, byConv, req.Reason, res)
}

// deleteTurnsOf deletes the turns of each conversation in one change, with
// what was drawn from them, and counts them in res.
func (s *Service) deleteTurnsOf(ctx context.Context, byConv map[string][]Document, reason string, res *ForgetResult) error {
	for conv, turns := range byConv {
		sums, err := s.deleteTurnDocs(ctx, conv, turns, reason)
		if err != nil {
			return err
		}
		res.Turns += len(turns)
		res.Summaries += sums
	}
	return nil
}

// Covers reports whether a memory with metadata m is the request's to
// forget: of the entity's scope (everywhere only), told by the person or
// about them, or caused by the room; within req.RoomID when set.
func (req ForgetRequest) Covers(m Metadata) bool {
	if req.RoomID != "" && m.RoomID != req.RoomID {
		return false
	}
	return (req.RoomID == "" && m.Scope == EntityScope(req.Entity)) || m.UserID == req.Entity ||
		m.SubjectUserID == req.Entity || m.RoomID == req.Entity
}

// forgetMemories deletes the memories the request covers.
func (s *Service) forgetMemories(ctx context.Context, req ForgetRequest) (int, error) {
	var gone []Document
	err := s.eachDocument(ctx, Filter{Type: DocMemory, RoomID: req.RoomID}, func(d Document) {
		if req.Covers(d.Meta) {
			gone = append(gone, d)
		}
	})
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	now := s.now()
	for batch := range slices.Chunk(gone, forgetPage) {
		var c Change
		for _, d := range batch {
			c.Delete = append(c.Delete, d.ID)
			c.History = append(c.History, historyOf(d, HistoryDelete, now, req.Reason))
		}
		if err := s.applyDeletion(ctx, c); err != nil {
			return 0, err
		}
	}
	return len(gone), nil
}

// eachDocument calls fn for every document matching f, newest first, a
// page at a time.
func (s *Service) eachDocument(ctx context.Context, f Filter, fn func(Document)) error {
	for {
		docs, err := s.store.List(ctx, f, forgetPage)
		if err != nil {
			return err
		}
		for _, d := range docs {
			fn(d)
		}
		if len(docs) < forgetPage {
			return nil
		}
		last := docs[len(docs)-1]
		f.Before = &Position{Time: last.Meta.Timestamp, ID: last.ID}
	}
}

// forgetRetired blanks the words the request covers in the history of
// memories a correction retired: they are no longer stored, so
// forgetMemories does not find them, and a correction by someone else
// leaves the person's words there while the newer memory lives.
func (s *Service) forgetRetired(ctx context.Context, req ForgetRequest) error {
	retired, err := s.store.Retired(ctx, req)
	if err != nil {
		return err
	}
	var ids []string
	seen := map[string]bool{}
	for _, h := range retired {
		if req.Covers(h.Meta) && !seen[h.MemoryID] {
			seen[h.MemoryID] = true
			ids = append(ids, h.MemoryID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return s.store.ForgetHistory(ctx, ids)
}
