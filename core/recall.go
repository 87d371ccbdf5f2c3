package core

import (
	"context"
	"slices"
)

// minRecallCandidates is how many turns the search proposes at least (see
// recallCandidates). It was kept because it moved `ada eval chat` and `ada
// eval retrieval` on the LoCoMo development half (the README's table).
const minRecallCandidates = 50

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
