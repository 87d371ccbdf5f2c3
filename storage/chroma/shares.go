package chroma

import (
	"sync"
	"time"
)

// filterShares remembers, per where clause (termScope), the share of the
// documents it selects, as last seen among a vector search's unfiltered
// nearest neighbours. Chroma 1.0 evaluates a where clause by reading the
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
	mu     sync.Mutex
	shares map[string]filterShare
}

type filterShare struct {
	share float64
	until time.Time
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
	if v, ok := c.shares[scope]; ok && now.Before(v.until) {
		share = (v.share + share) / 2
	}
	c.shares[scope] = filterShare{share: share, until: now.Add(shareFor)}
}
