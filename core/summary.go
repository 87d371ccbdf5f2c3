package core

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// summaryTimeout bounds one background summary.
const summaryTimeout = 2 * time.Minute

// maxSummaryTurns bounds the turns one summary covers. Summaries normally
// cover 2·RAG_SUMMARY_EVERY_N turns; after failed summaries the backlog is
// caught up in pieces of at most this many, still contiguous.
const maxSummaryTurns = 200

// maybeSummarize queues a summary after every SummaryEveryN exchanges. It
// never delays the answer.
func (s *Service) maybeSummarize(ctx context.Context, req ChatRequest, userTurnIndex int) {
	if s.opts.SummaryEveryN <= 0 || !s.opts.EnableSummary {
		return
	}
	exchanges := userTurnIndex/2 + 1
	if exchanges%s.opts.SummaryEveryN != 0 {
		return
	}
	s.bg.enqueue(ctx, req.ConversationID, "summary", func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, summaryTimeout)
		defer cancel()
		err := s.summarize(ctx, req.ConversationID, req.RoomID, userTurnIndex+1)
		if err != nil {
			s.logger(ctx).Warn("summary failed", "conversation_id", req.ConversationID, "error", err)
		}
		return err
	})
}

// summarize condenses the turns after the end of the previous summary up to
// lastTurn, so that the summaries of a conversation are contiguous: no turn
// is skipped and none is summarised twice (DECISIONS.md).
func (s *Service) summarize(ctx context.Context, convID, roomID string, lastTurn int) error {
	idx, after, err := s.summarizedUpTo(ctx, convID)
	if err != nil {
		return err
	}
	if after >= lastTurn {
		return nil // already covered
	}
	upTo := min(lastTurn, after+maxSummaryTurns)
	turns, text, vec, err := s.summaryOfStored(ctx, Filter{Type: DocTurn, ConversationID: convID, AfterTurn: &after, UpToTurn: &upTo})
	if err != nil || len(turns) == 0 {
		return err
	}
	return s.store.Put(ctx, Document{ID: NewDocID(), Text: text, Embedding: vec, Meta: Metadata{
		Type: DocSummary, Timestamp: s.now().UTC(), Source: SourceSystem, Scope: ScopeGlobal,
		ConversationID: convID, TurnRange: fmt.Sprintf("%d-%d", after+1, upTo), SummaryIndex: &idx, RoomID: roomID,
	}})
}

// summarizedUpTo is where the conversation's summaries end: the last turn
// they cover (-1 for none) and the index of the next summary. It goes by the
// turn ranges, not by the newest timestamp: a clock stepped back, or two
// summaries stamped alike, must not make a summary skip or repeat turns.
func (s *Service) summarizedUpTo(ctx context.Context, convID string) (nextIndex, lastTurn int, err error) {
	sums, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: convID}, maxSummariesPerConversation)
	if err != nil {
		return 0, 0, err
	}
	lastTurn = -1
	for _, d := range sums {
		if d.Meta.SummaryIndex != nil {
			nextIndex = max(nextIndex, *d.Meta.SummaryIndex+1)
		}
		if _, end, ok := parseTurnRange(d.Meta.TurnRange); ok {
			lastTurn = max(lastTurn, end)
		}
	}
	return nextIndex, lastTurn, nil
}

// summaryAttempts bounds how often summaryOfStored asks the model again
// because turns it was summarising were deleted meanwhile.
const summaryAttempts = 3

// summaryOfStored summarises the turns f selects (newest first, as listed;
// none: no summary) and checks, once the model has answered, that every
// one of them is still stored. A turn deleted meanwhile (a redaction, a
// forgetting) looked for the summaries covering it before this one
// existed: stored, the summary would keep the forgotten words. So the
// summary is made again from the turns that remain.
func (s *Service) summaryOfStored(ctx context.Context, f Filter) ([]Document, string, []float32, error) {
	for range summaryAttempts {
		turns, err := s.store.List(ctx, f, maxSummaryTurns)
		if err != nil || len(turns) == 0 {
			return nil, "", nil, err
		}
		text, vec, err := s.summaryOf(ctx, reversed(turns))
		if err != nil {
			return nil, "", nil, err
		}
		now, err := s.store.List(ctx, f, maxSummaryTurns)
		if err != nil {
			return nil, "", nil, err
		}
		if !slices.ContainsFunc(turns, func(t Document) bool {
			return !slices.ContainsFunc(now, func(d Document) bool { return d.ID == t.ID })
		}) {
			return turns, text, vec, nil
		}
	}
	return nil, "", nil, Errorf(KindUnavailable, "turns were deleted while they were summarised, %d times; the summary is left for later", summaryAttempts)
}

// summaryOf asks the model to condense turns (oldest first) and embeds
// the summary.
func (s *Service) summaryOf(ctx context.Context, turns []Document) (string, []float32, error) {
	var transcript strings.Builder
	for _, t := range turns {
		fmt.Fprintf(&transcript, "%s: %s\n", s.speaker(t), t.Text)
	}
	var out strings.Builder
	err := s.llm.Chat(ctx, LLMRequest{Messages: []Message{
		{Role: "system", Content: "You write short, factual summaries of conversations: who wants what, decisions, facts worth remembering (names, numbers, dates, codes: keep them exact). At most five sentences. No preamble."},
		{Role: "user", Content: "Summarise this part of the conversation:\n\n" + transcript.String()},
	}}, func(ev LLMEvent) error {
		if ev.Kind == LLMToken {
			out.WriteString(ev.Text)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	text := strings.TrimSpace(out.String())
	if text == "" {
		return "", nil, fmt.Errorf("the model returned an empty summary")
	}
	vec, err := s.embedOne(ctx, text)
	return text, vec, err
}

// speaker names the author of a turn in transcripts.
func (s *Service) speaker(t Document) string {
	switch {
	case t.Meta.Role == "assistant":
		return s.opts.AIName
	case t.Meta.Speaker != "":
		return t.Meta.Speaker
	}
	return s.opts.UserName
}

// parseTurnRange reads a summary's "first-last" turn range.
func parseTurnRange(r string) (first, last int, ok bool) {
	a, b, found := strings.Cut(r, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	return first, last, found && err1 == nil && err2 == nil
}
