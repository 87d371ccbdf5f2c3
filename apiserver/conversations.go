package apiserver

import "fmt"

// handleRecentConversations lists conversations, newest first (a bare array).
func (s *Server) handleRecentConversations(r *request) error {
	limit, err := intParam(r, "limit", 10)
	if err != nil {
		return err
	}
	convs, err := s.core.RecentConversations(r.ctx, limit)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, convs)
	return nil
}

func (s *Server) handleConversation(r *request) error {
	id := pathParam(r, "conversation_id")
	turns, err := s.core.ConversationTurns(r.ctx, id)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"conversation_id": id, "turns": turns})
	return nil
}

// handleConversationDelete deletes the turns and summaries of a conversation.
func (s *Server) handleConversationDelete(r *request) error {
	id := pathParam(r, "conversation_id")
	n, err := s.core.DeleteConversation(r.ctx, id)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"ok": true, "conversation_id": id, "deleted": n,
		"detail": fmt.Sprintf("deleted %d turns and summaries; memories saved from the conversation stay", n)})
	return nil
}

// handleTurnDelete deletes one turn and what was learned only from it.
func (s *Server) handleTurnDelete(r *request) error {
	convID, turnID := pathParam(r, "conversation_id"), pathParam(r, "turn_id")
	reason := strParam(r, "reason")
	if reason == "" {
		reason = "the message it was learned from was deleted"
	}
	if _, err := s.core.DeleteTurns(r.ctx, convID, []string{turnID}, reason); err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"ok": true, "id": turnID, "conversation_id": convID,
		"detail": "turn deleted, with the automatic memories learned only from it; summaries that covered it are rewritten"})
	return nil
}
