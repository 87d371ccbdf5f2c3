package core

import (
	"fmt"
	"time"
)

// askedWhenWeight is the share of the best relevance among the candidates
// added to a relevant turn that mentions a time (its times, resolved when
// stored: "yesterday", "on 13 October") when the prompt asks for a time
// and names none ("When did Sam move to Lisbon?"): the turn that says
// when is likelier the answer than one as relevant that does not. Kept
// because it moved the temporal questions of the LoCoMo development half
// (docs/operators.md); 0.5 took from the multi-hop ones at defaults.
const askedWhenWeight = 0.3

// timeMatch is why a memory is of a time the query names, and the bonus
// that adds to its score.
type timeMatch struct {
	bonus float64
	why   string
}

// memoryTimeBonuses says which of the candidate memories are of a time the
// query names (askedTimes.match: written then, or mentioning it, as their
// times were resolved when written), and what that adds to their score:
// namedTimeWeight times the best relevance term among the candidates, so
// a memory of the time asked about ranks above one as relevant of another
// time, whatever their importance and age. A time that more than half of
// the candidates match tells them no further apart (as a word in most
// documents): then none gets the bonus. It returns nil when none does,
// else one entry per candidate (why "" for those of no time asked).
func (s *Service) memoryTimeBonuses(asked askedTimes, docs []relevantDoc) []timeMatch {
	if asked.empty() {
		return nil
	}
	out := make([]timeMatch, len(docs))
	matched, top := 0, 0.0
	for i, d := range docs {
		top = max(top, d.Relevance)
		if out[i].why = asked.match(d.Document); out[i].why != "" {
			matched++
		}
	}
	if matched == 0 || 2*matched > len(docs) {
		return nil
	}
	bonus := round4(namedTimeWeight * s.opts.SimWeight * top)
	for i := range out {
		if out[i].why != "" {
			out[i].bonus = bonus
		}
	}
	return out
}

// askedIn reads the times a chat's prompt names, against when it was
// written (now when the request does not say) in its time zone.
func (s *Service) askedIn(req ChatRequest) askedTimes {
	at := req.UserTimestamp
	if at.IsZero() {
		at = s.now()
	}
	return timesAsked(req.Prompt, at, req.Location)
}

// askedNow reads the times a search's query names, against now in UTC:
// the memory search API and page know no time zone of the asker.
func (s *Service) askedNow(query string) askedTimes {
	return timesAsked(query, s.now(), time.UTC)
}

// askedWhenBonus adds askedWhenWeight times top to the score of each
// relevant turn among out[turns] that mentions a time, and says so.
func askedWhenBonus(out []recalledDoc, turns []int, top float64) {
	bonus := round4(askedWhenWeight * top)
	for _, i := range turns {
		d := &out[i]
		if d.Relevance <= 0 || len(d.Meta.Times) == 0 {
			continue
		}
		m := d.Meta.Times[0]
		d.Score = round4(d.Score + bonus)
		d.Explain.TimeBonus = &bonus
		d.Explain.TimeMatch = fmt.Sprintf("says %q (%s), and the prompt asks when", m.Text, spanDates(m.Start, m.End))
	}
}

// admitBelowFloor lets the turns out[matched] (of a time the prompt names,
// sharing a word with it) that are below the relevance floor be recalled
// (timeAdmitted), their relevance counted as the floor in their score.
// What the floor keeps out is what shares too little with the prompt: a
// word, and the very time it asks about, is more than the bare relevance
// of a short turn says ("let's ship on Friday", asked a week later "what
// did we decide about shipping last week?"). Counted as its bare
// relevance, such a turn would lose its place to any turn sharing more
// words of another time, though the time is the better evidence.
func admitBelowFloor(out []recalledDoc, matched []int, floor float64) {
	for _, i := range matched {
		d := &out[i]
		if d.Relevance >= floor {
			continue
		}
		d.timeAdmitted = true
		d.Score = round4(d.Score + floor - d.Relevance)
		d.Explain.TimeMatch += fmt.Sprintf("; below the relevance floor (%g), recalled as if at it for that time and a word it shares with the prompt", floor)
	}
}
