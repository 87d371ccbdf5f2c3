package core

import (
	"context"
	"slices"
	"strings"
)

// minRecallCandidates is how many turns the search proposes at least (see
// recallCandidates). It was kept because it moved `ada eval chat` and `ada
// eval retrieval` on the LoCoMo development half (the table in docs/operators.md).
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
	// timeAdmitted is set on a turn recall takes below the relevance
	// floor: it is of a time the prompt names and shares a word with it,
	// and the time tells the turns apart: of the candidates that share a
	// word with the prompt, at most half are of that time (as for
	// memories, memoryTimeBonuses). Recall's k bounds them; each ranks by
	// its score, its time bonus included (admitBelowFloor).
	timeAdmitted bool
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
// relevance: the session bonus re-ranks only what is relevant, and only a
// turn of the time the prompt names is taken below it (timeAdmitted).
func (s *Service) recall(ctx context.Context, req ChatRequest, vec []float32, asked askedTimes, k int, r *retrieval) error {
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
	for _, d := range rankRecall(cands, asked, s.opts.RelevanceFloor) {
		if len(hits) == k {
			break
		}
		recent := d.Meta.Type == DocTurn && (d.Meta.TurnIndex == nil || *d.Meta.TurnIndex >= firstRecent)
		if recent || d.Relevance <= 0 || d.Relevance < s.opts.RelevanceFloor && !d.timeAdmitted ||
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

// withNeighbours brings the neighbours of each recalled turn, up to the
// turn index before, in the order of a ranking: each hit, followed by the
// turn after it when the hit asks a question (its answer is as relevant as
// the question: "what breed?" – "a greyhound"); the other neighbours (the
// turn before each hit, the turn after one that asks nothing) are context
// and come after every hit. A hit that answers an earlier one comes with
// it. The chat takes them all (recall sorts them by time; fitBudget keeps
// each with its turn); the order is the ranking RecallTurns reports. All
// neighbours are read in one lookup.
func (s *Service) withNeighbours(ctx context.Context, convID string, hits []recalledDoc, before int) ([]recalledDoc, error) {
	isHit := make(map[string]int, len(hits))
	var wanted []int
	for i, h := range hits {
		isHit[h.ID] = i
		if h.Meta.Type != DocTurn || h.Meta.TurnIndex == nil {
			continue
		}
		for _, n := range []int{*h.Meta.TurnIndex + 1, *h.Meta.TurnIndex - 1} {
			if n >= 0 && n < before && !slices.Contains(wanted, n) {
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
	var aside []recalledDoc
	for _, h := range hits {
		if !seen[h.ID] {
			seen[h.ID] = true
			out = append(out, h)
		}
		if h.Meta.Type != DocTurn || h.Meta.TurnIndex == nil {
			continue
		}
		neighbour := func(d Document) recalledDoc {
			return recalledDoc{relevantDoc: relevantDoc{Document: d}, Score: h.Score, neighbourOf: h.ID}
		}
		if d, ok := byIndex[*h.Meta.TurnIndex+1]; ok && !seen[d.ID] {
			i, hit := isHit[d.ID]
			switch {
			case !asksQuestion(h.Text):
				if !hit {
					aside = append(aside, neighbour(d))
				}
			case hit:
				seen[d.ID] = true
				out = append(out, hits[i])
			default:
				seen[d.ID] = true
				out = append(out, neighbour(d))
			}
		}
		if d, ok := byIndex[*h.Meta.TurnIndex-1]; ok && !seen[d.ID] {
			if _, hit := isHit[d.ID]; !hit {
				aside = append(aside, neighbour(d))
			}
		}
	}
	for _, d := range aside {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// asksQuestion reports whether a turn asks something: its answer is the
// turn after it.
func asksQuestion(text string) bool { return strings.ContainsAny(text, "?？؟") }
