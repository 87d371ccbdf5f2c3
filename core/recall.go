package core

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// How the chat recalls earlier context. Each rule was kept because it moved
// `ada eval chat` and `ada eval retrieval` on the LoCoMo development half
// (the README's table); none names anything of that benchmark.
const (
	// minRecallCandidates is how many turns the search proposes at least
	// (see recallCandidates).
	minRecallCandidates = 50
	// sessionGap ends a session: turns further apart than this belong to
	// different sittings of the conversation.
	sessionGap = time.Hour
	// sessionWeight is the share of the best relevance in a turn's session
	// added to the turn's own. What a question asks about is usually talked
	// about for a while: a turn among relevant turns ranks above a lone
	// turn of the same relevance elsewhere.
	sessionWeight = 0.5
)

// recallCandidates is how many turns the search proposes for k recalled
// ones: five times as many, and at least minRecallCandidates, so that a
// session is judged by more than the few turns finally kept.
func recallCandidates(k int) int { return max(5*k, minRecallCandidates) }

// recalledDoc is an earlier turn or summary chosen for the prompt.
type recalledDoc struct {
	relevantDoc
	// Score ranks what is recalled: relevance plus the session bonus. A
	// neighbour has its recalled turn's.
	Score float64
	// neighbourOf is set on a turn that comes with the recalled turn next
	// to it: that turn's ID. The context budget keeps or drops them
	// together, whatever their order.
	neighbourOf string
}

// isNeighbour reports whether d comes with a recalled turn next to it.
func (d recalledDoc) isNeighbour() bool { return d.neighbourOf != "" }

// rankRecall scores docs (turns and summaries of one conversation with
// their relevance) and sorts them best first. A turn's score is its
// relevance plus sessionWeight times the best relevance among the turns of
// its session; a summary is a session of its own.
func rankRecall(docs []relevantDoc) []recalledDoc {
	out := make([]recalledDoc, len(docs))
	for i, d := range docs {
		out[i] = recalledDoc{relevantDoc: d}
	}
	var turns []int
	for i, d := range out {
		if d.Meta.Type == DocTurn {
			turns = append(turns, i)
		} else {
			d.Score = round4(d.Relevance * (1 + sessionWeight))
			out[i] = d
		}
	}
	slices.SortFunc(turns, func(a, b int) int { return out[a].Meta.Timestamp.Compare(out[b].Meta.Timestamp) })
	for start := 0; start < len(turns); {
		end, best := start+1, out[turns[start]].Relevance
		for end < len(turns) && out[turns[end]].Meta.Timestamp.Sub(out[turns[end-1]].Meta.Timestamp) <= sessionGap {
			best = max(best, out[turns[end]].Relevance)
			end++
		}
		for _, i := range turns[start:end] {
			bonus := round4(sessionWeight * best)
			out[i].Score = round4(out[i].Relevance + bonus)
			out[i].Explain.SessionBonus = &bonus
		}
		start = end
	}
	slices.SortStableFunc(out, func(a, b recalledDoc) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// recall finds the earlier turns and summaries of the conversation most
// relevant to the prompt, beyond the recent window: the best k, each turn
// with its neighbours, in time order. The floor applies to an item's own
// relevance: the session bonus re-ranks only what is relevant.
func (s *Service) recall(ctx context.Context, req ChatRequest, vec []float32, k int, r *retrieval) error {
	firstRecent := r.firstRecentTurn()
	var cands []relevantDoc
	if s.opts.EnableTurn {
		// The recent window's turns are searched too: they tell which
		// session is being talked about, though they are not recalled.
		docs, err := s.searchRelevant(ctx, req.Prompt, vec, relevantQuery{
			Filter: Filter{Type: DocTurn, ConversationID: req.ConversationID}, K: recallCandidates(k + len(r.turns))})
		if err != nil {
			return err
		}
		cands = append(cands, docs...)
	}
	if s.opts.EnableSummary {
		docs, err := s.searchRelevant(ctx, req.Prompt, vec, relevantQuery{
			Filter: Filter{Type: DocSummary, ConversationID: req.ConversationID}, K: k + len(r.summaries), Floor: s.opts.RelevanceFloor})
		if err != nil {
			return err
		}
		cands = append(cands, docs...)
	}
	var hits []recalledDoc
	for _, d := range rankRecall(cands) {
		if len(hits) == k {
			break
		}
		recent := d.Meta.Type == DocTurn && (d.Meta.TurnIndex == nil || *d.Meta.TurnIndex >= firstRecent)
		if recent || d.Relevance <= 0 || d.Relevance < s.opts.RelevanceFloor ||
			slices.ContainsFunc(r.summaries, func(x Document) bool { return x.ID == d.ID }) {
			continue
		}
		hits = append(hits, d)
	}
	found, err := s.withNeighbours(ctx, req.ConversationID, hits, firstRecent)
	if err != nil {
		return err
	}
	slices.SortStableFunc(found, func(a, b recalledDoc) int { return a.Meta.Timestamp.Compare(b.Meta.Timestamp) })
	r.recalled = found
	return nil
}

// withNeighbours follows each recalled turn by its neighbours (see
// neighbourOffsets), up to the turn index before, in the order of
// hits: a hit that is the neighbour of an earlier one comes with it, as a
// hit. All neighbours are read in one lookup.
func (s *Service) withNeighbours(ctx context.Context, convID string, hits []recalledDoc, before int) ([]recalledDoc, error) {
	isHit := make(map[string]int, len(hits))
	var wanted []int
	for i, h := range hits {
		isHit[h.ID] = i
		if h.Meta.Type != DocTurn || h.Meta.TurnIndex == nil {
			continue
		}
		for _, off := range neighbourOffsets() {
			if n := *h.Meta.TurnIndex + off; n >= 0 && n < before && !slices.Contains(wanted, n) {
				wanted = append(wanted, n)
			}
		}
	}
	byIndex := make(map[int]Document, len(wanted))
	if len(wanted) > 0 {
		docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: convID, TurnIndexes: wanted}, len(wanted))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			byIndex[*d.Meta.TurnIndex] = d
		}
	}
	seen := make(map[string]bool, 3*len(hits))
	out := make([]recalledDoc, 0, 3*len(hits))
	for _, h := range hits {
		if !seen[h.ID] {
			seen[h.ID] = true
			out = append(out, h)
		}
		if h.Meta.Type != DocTurn || h.Meta.TurnIndex == nil {
			continue
		}
		for _, off := range neighbourOffsets() {
			d, ok := byIndex[*h.Meta.TurnIndex+off]
			if !ok || seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			if i, ok := isHit[d.ID]; ok {
				out = append(out, hits[i])
				continue
			}
			out = append(out, recalledDoc{relevantDoc: relevantDoc{Document: d}, Score: h.Score, neighbourOf: h.ID})
		}
	}
	return out, nil
}

// neighbourOffsets are the turn index offsets of a recalled turn's
// neighbours, in the order they come: the turn after it (an answer sits
// next to its question, and a reply often holds the fact a question's words
// point to: "what breed?" – "a greyhound"), then the turn before it.
func neighbourOffsets() [2]int { return [2]int{1, -1} }
