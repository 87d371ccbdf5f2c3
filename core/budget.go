package core

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// DefaultContextBudget is RAG_CONTEXT_BUDGET's default, in estimated
// tokens: the whole prompt (persona, context, recent turns, the message)
// of an 8k-token local model, leaving half the window to the answer and
// to specialist results.
const DefaultContextBudget = 4000

// charsPerToken estimates tokens without a tokenizer model: English prose
// runs about four characters a token in the common BPE vocabularies; code
// and other scripts run fewer, which the half window left over absorbs.
const charsPerToken = 4

// estimateTokens is the estimated token count of s.
func estimateTokens(s string) int { return EstimateTokens(utf8.RuneCountInString(s)) }

// EstimateTokens is the estimated token count of a text of n characters,
// for a count no backend reported (the context budget, the metrics).
func EstimateTokens(n int) int { return (n + charsPerToken - 1) / charsPerToken }

// sectionAllowance covers, in tokens, the headings and context-guide lines
// that the optional sections add to the prompt.
const sectionAllowance = 150

// budgetItem is one optional part of the context: a memory, an FAQ entry,
// or a recalled turn or summary with its neighbours.
type budgetItem struct {
	ids       []string
	relevance float64
	tokens    int
}

// fitBudget keeps the prompt within the context budget: the persona, the
// message, the recent window and the newest summaries always go in; the
// recalled context, memories and FAQs are then added by relevance (their
// own, comparable across kinds) while they fit. What does not fit is left
// out of the prompt and of used_context alike.
func (s *Service) fitBudget(req ChatRequest, r *retrieval) {
	if s.opts.ContextBudget <= 0 || len(r.memories)+len(r.faqs)+len(r.recalled) == 0 {
		return
	}
	fixed := *r
	fixed.memories, fixed.faqs, fixed.recalled = nil, nil, nil
	used := sectionAllowance
	for _, m := range s.assemble(req, fixed, s.now()).Messages {
		used += estimateTokens(m.Content)
	}
	var items []budgetItem
	for i, m := range r.memories {
		items = append(items, budgetItem{[]string{m.ID}, relevanceOf(r.used.Memories[i]), estimateTokens(memoriesText([]Memory{m}))})
	}
	for i, f := range r.faqs {
		items = append(items, budgetItem{[]string{f.ID}, relevanceOf(r.used.FAQs[i]), estimateTokens(faqText([]Document{f}))})
	}
	// A recalled turn and its neighbours go in or stay out together. They
	// are in time order by now: a neighbour before its turn follows the
	// previous turn's group, so groups are found by the turn they are of.
	groups := map[string][]recalledDoc{}
	var order []string
	for _, d := range r.recalled {
		key := d.ID
		if d.isNeighbour() {
			key = d.neighbourOf
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], d)
	}
	for _, key := range order {
		group := groups[key]
		item := budgetItem{tokens: estimateTokens(s.recalledText(req, r.labels, group))}
		for _, d := range group {
			item.ids = append(item.ids, d.ID)
			item.relevance = max(item.relevance, d.Relevance)
		}
		items = append(items, item)
	}
	slices.SortStableFunc(items, func(a, b budgetItem) int { return cmp.Compare(b.relevance, a.relevance) })
	keep := map[string]bool{}
	dropped := 0
	for _, it := range items {
		if used+it.tokens > s.opts.ContextBudget {
			dropped++
			continue
		}
		used += it.tokens
		for _, id := range it.ids {
			keep[id] = true
		}
	}
	if dropped == 0 {
		return
	}
	r.budgetDropped = dropped
	r.memories = slices.DeleteFunc(r.memories, func(m Memory) bool { return !keep[m.ID] })
	r.used.Memories = slices.DeleteFunc(r.used.Memories, func(c ContextItem) bool { return !keep[c.ID] })
	r.faqs = slices.DeleteFunc(r.faqs, func(d Document) bool { return !keep[d.ID] })
	r.used.FAQs = slices.DeleteFunc(r.used.FAQs, func(c ContextItem) bool { return !keep[c.ID] })
	r.recalled = slices.DeleteFunc(r.recalled, func(d recalledDoc) bool { return !keep[d.ID] })
}

// relevanceOf is a searched item's relevance to the prompt.
func relevanceOf(c ContextItem) float64 {
	if c.Explain == nil {
		return 0
	}
	return c.Explain.Relevance
}
