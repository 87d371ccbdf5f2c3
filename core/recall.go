package core

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"
)

// How the chat recalls earlier context. Each rule was kept because it moved
// `ada eval chat` and `ada eval retrieval` on the LoCoMo development half
// (the README's table); none names anything of that benchmark.
const (
	// recallCandidates is how many turns the search proposes at least, so
	// that a session is judged by more than the few turns finally kept.
	recallCandidates = 50
	// sessionGap ends a session: turns further apart than this belong to
	// different sittings of the conversation.
	sessionGap = time.Hour
	// sessionWeight is the share of the best relevance in a turn's session
	// added to the turn's own. What a question asks about is usually talked
	// about for a while: a turn among relevant turns ranks above a lone
	// turn of the same relevance elsewhere.
	sessionWeight = 0.5
	// neighbourSpan is how many turns on each side of a recalled turn come
	// with it: an answer sits next to its question, and a reply often
	// holds the fact a question's words point to ("what breed?" — "a
	// greyhound").
	neighbourSpan = 1
)

// recalledDoc is an earlier turn or summary chosen for the prompt.
type recalledDoc struct {
	relevantDoc
	// Score ranks what is recalled: relevance plus the session bonus. A
	// neighbour has its recalled turn's.
	Score float64
	// Neighbour marks a turn that comes with a recalled turn next to it.
	Neighbour bool
	// of is a neighbour's recalled turn (its ID): the context budget keeps
	// or drops them together, whatever their order.
	of string
}

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
			Filter: Filter{Type: DocTurn, ConversationID: req.ConversationID}, K: max(5*(k+len(r.turns)), recallCandidates)})
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

// withNeighbours follows each recalled turn by the turns within
// neighbourSpan of it, up to the turn index before, in the order of hits: a
// hit that is the neighbour of an earlier one comes with it, as a hit.
func (s *Service) withNeighbours(ctx context.Context, convID string, hits []recalledDoc, before int) ([]recalledDoc, error) {
	isHit := make(map[string]int, len(hits))
	for i, h := range hits {
		isHit[h.ID] = i
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
		after, upTo := *h.Meta.TurnIndex-neighbourSpan-1, min(*h.Meta.TurnIndex+neighbourSpan, before-1)
		docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: convID, AfterTurn: &after, UpToTurn: &upTo}, 2*neighbourSpan+1)
		if err != nil {
			return nil, err
		}
		// The turns after the hit come first (List is newest first, and
		// the reply to a question follows it), then those before.
		slices.SortStableFunc(docs, func(a, b Document) int { return cmp.Compare(neighbourRank(a, h), neighbourRank(b, h)) })
		for _, d := range docs {
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			if i, ok := isHit[d.ID]; ok {
				out = append(out, hits[i])
				continue
			}
			out = append(out, recalledDoc{relevantDoc: relevantDoc{Document: d}, Score: h.Score, Neighbour: true, of: h.ID})
		}
	}
	return out, nil
}

// neighbourRank orders the neighbours of hit h: the turns after it, nearest
// first, then the turns before it, nearest first.
func neighbourRank(d Document, h recalledDoc) int {
	if d.Meta.TurnIndex == nil {
		return math.MaxInt
	}
	off := *d.Meta.TurnIndex - *h.Meta.TurnIndex
	if off > 0 {
		return off
	}
	return neighbourSpan - off
}
