package chroma

import (
	"sync"
	"time"
)

// filterShares remembers, per where clause (termScope), the share of the
// documents it selects, as measured among the nearest neighbours of
// random directions (measureShare) or, until it is, as last seen among a
// vector search's unfiltered nearest neighbours. Chroma 1.0 evaluates a where clause by reading the
// metadata of every document it selects (a vector query's allowed ids, a
// get's groups): a clause that selects most of the store (the memories
// of a store of memories) costs a read of the store per request, while
// one that selects few (the FAQ, one conversation) costs little. A filter
// known to select a large share is therefore searched without its where
// clause and checked here instead (Search, KeywordSearch); one known to
// select few, or not known yet, keeps its where clause. A share changes
// slowly and only decides how to ask, never what is found: a stale one
// costs time, not results.
type filterShares struct {
	mu        sync.Mutex
	shares    map[string]filterShare
	measuring map[string]bool // the clauses measureShare is measuring
}

type filterShare struct {
	share float64
	until time.Time
	// measured: among the neighbours of random directions (measureShare),
	// not of a question, whose neighbourhood may hold few of the filter's
	// documents (many turns alike near a question asked often); a
	// question's share then no longer changes it.
	measured bool
}

const (
	shareFor = 10 * time.Minute
	// sharesMax bounds the clauses remembered (when full, it starts
	// again): a chat's clauses are few (its FAQ, its scopes).
	sharesMax = 1000
)

// get returns the share of scope's where clause, and whether it is known.
func (c *filterShares) get(scope string, now time.Time) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.shares[scope]
	if !ok || !now.Before(v.until) {
		return 0, false
	}
	return v.share, true
}

// set records that scope's where clause selected share of the documents
// of a sample: averaged with the share known, so that one query whose
// neighbours happen to lie outside the filter does not turn the next
// searches back to the where clause for shareFor.
func (c *filterShares) set(scope string, share float64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shares == nil || len(c.shares) >= sharesMax {
		c.shares = map[string]filterShare{}
	}
	v, ok := c.shares[scope]
	if ok && now.Before(v.until) {
		if v.measured {
			return
		}
		share = (v.share + share) / 2
	}
	c.shares[scope] = filterShare{share: share, until: now.Add(shareFor)}
}

// measured records scope's share as measureShare found it.
func (c *filterShares) measured(scope string, share float64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shares == nil || len(c.shares) >= sharesMax {
		c.shares = map[string]filterShare{}
	}
	c.shares[scope] = filterShare{share: share, until: now.Add(shareFor), measured: true}
}

// claim reports whether scope's share is to be measured now (fresh and
// measured, or being measured, it is not) and, if so, marks it being
// measured until release.
func (c *filterShares) claim(scope string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.shares[scope]; ok && v.measured && now.Before(v.until) || c.measuring[scope] {
		return false
	}
	if c.measuring == nil {
		c.measuring = map[string]bool{}
	}
	c.measuring[scope] = true
	return true
}

func (c *filterShares) release(scope string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.measuring, scope)
}
