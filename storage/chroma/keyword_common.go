package chroma

import (
	"encoding/json"
	"sync"
	"time"
)

// termCache remembers, per where clause, whether a keyword term was found
// too common (more than maxTermDocs documents) or not, so that the next
// search asks Chroma for the rare terms' candidates at once, without
// counting each term again: counting is one request per term, and a
// request whose $or holds a common term costs the server a scan of every
// document holding it. A term's documents grow and shrink slowly, so a
// verdict is believed for termVerdictFor (a verdict proved wrong by a cut
// get is corrected then); at most termCacheMax are kept (when full, the
// cache starts again).
type termCache struct {
	mu       sync.Mutex
	verdicts map[string]termVerdict
}

type termVerdict struct {
	common bool
	until  time.Time
}

const (
	termVerdictFor = time.Hour
	termCacheMax   = 20000
)

// termScope is the key of where's verdicts, asked once a search.
func termScope(where map[string]any) string {
	w, _ := json.Marshal(where) // sorted keys: the same clause, the same key
	return string(w)
}

// verdict reports whether stem is common within the where clause of
// scope (termScope), and whether that is known (lately).
func (c *termCache) verdict(scope, stem string, now time.Time) (common, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[scope+"\x00"+stem]
	if !ok || !now.Before(v.until) {
		return false, false
	}
	return v.common, true
}

// set records whether each of stems is common (common[i]) within the
// where clause of scope.
func (c *termCache) set(scope string, stems []string, common []bool, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verdicts == nil || len(c.verdicts)+len(stems) > termCacheMax {
		c.verdicts = map[string]termVerdict{}
	}
	for i, st := range stems {
		c.verdicts[scope+"\x00"+st] = termVerdict{common: common[i], until: now.Add(termVerdictFor)}
	}
}

// storeSize is the collection's count (BM25's N), reused for
// storeSizeFor: a request saved per keyword search, and N moves the
// scores little while the store grows by a minute's writes.
type storeSize struct {
	mu    sync.Mutex
	n     int
	until time.Time
}

const storeSizeFor = time.Minute

// get returns the count, asking count when the one known is older than
// storeSizeFor.
func (c *storeSize) get(now time.Time, count func() (int, error)) (int, error) {
	c.mu.Lock()
	n, fresh := c.n, now.Before(c.until)
	c.mu.Unlock()
	if fresh {
		return n, nil
	}
	n, err := count()
	if err != nil {
		return 0, err
	}
	if n > 0 { // an empty store fills fast: its count is asked again
		c.mu.Lock()
		c.n, c.until = n, now.Add(storeSizeFor)
		c.mu.Unlock()
	}
	return n, nil
}
