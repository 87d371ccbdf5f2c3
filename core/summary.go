package core

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// summaryTimeout bounds one background summary.
const summaryTimeout = 2 * time.Minute

// maybeSummarize starts a summary in the background after every
// SummaryEveryN exchanges. It never delays the answer.
func (s *Service) maybeSummarize(req ChatRequest, userTurnIndex int) {
	if s.opts.SummaryEveryN <= 0 || !s.opts.EnableSummary {
		return
	}
	exchanges := userTurnIndex/2 + 1
	if exchanges%s.opts.SummaryEveryN != 0 {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("summary panicked", "conversation_id", req.ConversationID, "panic", fmt.Sprint(p))
			}
		}()
		ctx, cancel := context.WithTimeout(s.bgCtx, summaryTimeout)
		defer cancel()
		if err := s.summarize(ctx, req.ConversationID, req.RoomID, userTurnIndex+1); err != nil {
			s.log.Warn("summary failed", "conversation_id", req.ConversationID, "error", err)
		}
	}()
}

// summarize condenses the last SummaryTurnsWindow turns up to lastTurn.
func (s *Service) summarize(ctx context.Context, convID, roomID string, lastTurn int) error {
	turns, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: convID}, s.opts.SummaryTurnsWindow)
	if err != nil {
		return err
	}
	if len(turns) == 0 {
		return nil
	}
	turns = reversed(turns)
	var transcript strings.Builder
	for _, t := range turns {
		name := s.opts.UserName
		if t.Meta.Role == "assistant" {
			name = s.opts.AIName
		}
		fmt.Fprintf(&transcript, "%s: %s\n", name, t.Text)
	}
	var out strings.Builder
	err = s.llm.Chat(ctx, LLMRequest{Messages: []Message{
		{Role: "system", Content: "You write short, factual summaries of conversations: who wants what, decisions, facts worth remembering. At most five sentences. No preamble."},
		{Role: "user", Content: "Summarise this part of the conversation:\n\n" + transcript.String()},
	}}, func(ev LLMEvent) error {
		if ev.Kind == LLMToken {
			out.WriteString(ev.Text)
		}
		return nil
	})
	if err != nil {
		return err
	}
	text := strings.TrimSpace(out.String())
	if text == "" {
		return fmt.Errorf("the model returned an empty summary")
	}
	prev, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: convID}, 1)
	if err != nil {
		return err
	}
	idx := 0
	if len(prev) == 1 && prev[0].Meta.SummaryIndex != nil {
		idx = *prev[0].Meta.SummaryIndex + 1
	}
	first := 0
	if turns[0].Meta.TurnIndex != nil {
		first = *turns[0].Meta.TurnIndex
	}
	vec, err := s.embedOne(ctx, text)
	if err != nil {
		return err
	}
	return s.store.Put(ctx, Document{ID: NewDocID(), Text: text, Embedding: vec, Meta: Metadata{
		Type: DocSummary, Timestamp: s.now().UTC(), Source: SourceSystem, Scope: ScopeGlobal,
		ConversationID: convID, TurnRange: fmt.Sprintf("%d-%d", first, lastTurn), SummaryIndex: &idx, RoomID: roomID,
	}})
}
