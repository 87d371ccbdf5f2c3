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

func termKey(where map[string]any, stem string) string {
	w, _ := json.Marshal(where) // sorted keys: the same clause, the same key
	return string(w) + "\x00" + stem
}

// verdict reports whether stem is common within where, and whether that
// is known (lately).
func (c *termCache) verdict(where map[string]any, stem string, now time.Time) (common, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[termKey(where, stem)]
	if !ok || !now.Before(v.until) {
		return false, false
	}
	return v.common, true
}

// set records whether each of stems is common within where.
func (c *termCache) set(where map[string]any, stems []string, common func(string) bool, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verdicts == nil || len(c.verdicts)+len(stems) > termCacheMax {
		c.verdicts = map[string]termVerdict{}
	}
	for _, st := range stems {
		c.verdicts[termKey(where, st)] = termVerdict{common: common(st), until: now.Add(termVerdictFor)}
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
