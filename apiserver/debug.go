package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// debugEnabled hides the debug endpoints entirely unless RAG_DEBUG=true.
func (s *Server) debugEnabled(r *request) error {
	if !s.cfg.RAGDebug {
		return core.Errorf(core.KindNotFound, "no endpoint %s %s: debug endpoints need RAG_DEBUG=true", r.Method(), r.Path())
	}
	return nil
}

func (s *Server) handleDebugRAG(r *request) error {
	if err := s.debugEnabled(r); err != nil {
		return err
	}
	st, err := s.core.Stats(r.ctx)
	if err != nil {
		return err
	}
	resp := map[string]any{
		"collection": "conversations",
		"store":      st,
		"embedding":  map[string]any{"model": s.core.EmbedderName(), "dimensions": core.Dim, "store_embedder": st.Embedder},
		"config":     s.cfg.PublicConfig,
	}
	if id := strParam(r, "conversation_id"); id != "" {
		if !core.ValidConversationID(id) {
			return core.Errorf(core.KindInvalid, "conversation_id: must have the form conv-<uuid>, got %q", wire.Truncate(id, 60))
		}
		turns, err := s.core.ConversationTurns(r.ctx, id)
		if err != nil && core.KindOf(err) != core.KindNotFound {
			return err
		}
		resp["conversation"] = map[string]any{"conversation_id": id, "turn_count": len(turns)}
	}
	// With a prompt: what retrieval chose for it, each item with its
	// explanation (ranks, similarity, BM25, fused relevance, score terms).
	if strParam(r, "prompt") != "" || strParam(r, "message") != "" {
		p, err := s.debugRetrieval(r)
		if err != nil {
			return err
		}
		resp["retrieval"] = p.Used
	}
	writeJSON(r.RequestCtx, 200, resp)
	return nil
}

// handleDebugPrompt takes the chat request's fields as query parameters and
// returns the prompt built by the same code path chat uses.
func (s *Server) handleDebugPrompt(r *request) error {
	if err := s.debugEnabled(r); err != nil {
		return err
	}
	p, err := s.debugRetrieval(r)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"final_prompt": p.Render(), "sections": p.Sections,
		"messages": p.Messages, "used_context": p.Used})
	return nil
}

// debugRetrieval builds the prompt for the chat request given as query
// parameters, exactly as chat would.
func (s *Server) debugRetrieval(r *request) (core.Prompt, error) {
	body := wire.ChatRequest{}
	for name, dst := range map[string]**string{"prompt": &body.Prompt, "message": &body.Message,
		"conversation_id": &body.ConversationID, "entity": &body.Entity,
		"user_timestamp": &body.UserTimestamp, "timezone": &body.TimeZone, "room_id": &body.RoomID} {
		if v := strParam(r, name); v != "" {
			*dst = &v
		}
	}
	for name, dst := range map[string]**int{"turns_k": &body.TurnsK, "faq_k": &body.FAQK, "memory_k": &body.MemoryK,
		"recall_k": &body.RecallK} {
		v, err := optionalIntParam(r, name)
		if err != nil {
			return core.Prompt{}, err
		}
		*dst = v
	}
	thinking, err := boolParam(r, "include_thinking")
	if err != nil {
		return core.Prompt{}, err
	}
	body.IncludeThinking = thinking
	req, err := body.ToCore()
	if err != nil {
		return core.Prompt{}, err
	}
	return s.core.DebugPrompt(r.ctx, req)
}
