package chroma

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
)

// termCache remembers, per where clause, whether a keyword term was found
// too common (more than maxTermDocs documents) or not and, when not, the
// ids of its documents, so that the next search reads the candidates'
// texts by id without asking Chroma to read the store again (a get by
// $contains costs the server a read of every document, whatever it
// finds). A common term's documents grow and shrink slowly: its verdict
// is believed for termVerdictFor. A rare one's documents change with
// every write holding it: they are believed for termIDsFor, and forgotten
// at once when this process writes a text holding the term (written); a
// write by another replica is seen when they are asked again. A document
// deleted meanwhile is not read (its text is gone). At most termCacheMax
// verdicts and termIDsMax ids are kept (when full, the cache starts
// again).
type termCache struct {
	mu       sync.Mutex
	verdicts map[string]termVerdict
	ids      int // how many ids verdicts holds
}

type termVerdict struct {
	stem  string
	ids   []string // nil: too common
	until time.Time
}

const (
	termVerdictFor = time.Hour
	termIDsFor     = time.Minute
	termCacheMax   = 20000
	termIDsMax     = 500000
	// writtenScanMax is the most texts a write checks against the
	// verdicts one by one; a larger write (an import) forgets them all.
	writtenScanMax = 64
)

// termScope is the key of where's verdicts, asked once a search.
func termScope(where map[string]any) string {
	w, _ := json.Marshal(where) // sorted keys: the same clause, the same key
	return string(w)
}

// verdict reports whether stem is common within the where clause of
// scope (termScope), and whether that is known (lately); when it is not
// common, ids are its documents.
func (c *termCache) verdict(scope, stem string, now time.Time) (common bool, ids []string, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[scope+"\x00"+stem]
	if !ok || !now.Before(v.until) {
		return false, nil, false
	}
	return v.ids == nil, v.ids, true
}

// set records, for each of stems, its documents within the where clause
// of scope (ids[i]), or that it is common (ids[i] nil).
func (c *termCache) set(scope string, stems []string, ids [][]string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range ids {
		n += len(l)
	}
	if c.verdicts == nil || len(c.verdicts)+len(stems) > termCacheMax || c.ids+n > termIDsMax {
		c.verdicts, c.ids = map[string]termVerdict{}, 0
	}
	for i, st := range stems {
		v := termVerdict{stem: st, until: now.Add(termVerdictFor)}
		if ids[i] != nil {
			v.ids, v.until = ids[i], now.Add(termIDsFor)
		}
		key := scope + "\x00" + st
		c.ids += len(v.ids) - len(c.verdicts[key].ids)
		c.verdicts[key] = v
	}
}

// written forgets the documents of the rare terms that texts (just
// written) hold in any case (a superset of the forms $contains finds):
// their lists lack the new documents. A common term stays common.
func (c *termCache) written(texts []string) {
	lower := make([]string, len(texts))
	for i, t := range texts {
		lower[i] = strings.ToLower(t)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(texts) > writtenScanMax {
		c.verdicts, c.ids = nil, 0
		return
	}
	for key, v := range c.verdicts {
		if v.ids != nil && slices.ContainsFunc(lower, func(t string) bool { return strings.Contains(t, v.stem) }) {
			c.ids -= len(v.ids)
			delete(c.verdicts, key)
		}
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
