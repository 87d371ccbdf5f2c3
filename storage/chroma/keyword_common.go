package chroma

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

// termCache remembers, per where clause, whether a keyword term was found
// too common (more than maxTermDocs documents) or not and, when not, the
// ids of its documents, so that the next search reads the candidates'
// texts by id without asking Chroma to read the store again (a get by
// $contains costs the server a read of every document, whatever it
// finds). A verdict is believed for termVerdictFor: a term's documents
// grow and shrink slowly. A rare term's documents are believed for
// termIDsFor: after, a search still uses them, and counts the term again
// behind itself (refreshStale), so that another replica's writes are seen
// by the searches after it. A write of this process holding the term adds
// its document to the lists of the where clauses it meets (written). A
// document deleted meanwhile is not read (its text is gone). At most
// termCacheMax verdicts and termIDsMax ids are kept (when full, the cache
// starts again).
type termCache struct {
	mu       sync.Mutex
	verdicts map[string]termVerdict
	ids      int // how many ids verdicts holds
	// writes counts this process's writes (written): a count that began
	// before one may lack its document, so its lists are not believed.
	writes uint64
	// counting holds the scope and stem of each term being counted
	// behind a search (claim).
	counting map[string]bool
	// clauses are the conditions each scope's where clause holds
	// (whereConds), for written; a scope whose clause is not held exactly
	// is absent. They never go stale: a scope is its clause.
	clauses map[string][]core.Cond
}

type termVerdict struct {
	scope, stem     string
	ids             []string // nil: too common
	until, idsUntil time.Time
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

// wholeStore is the termScope of no where clause.
var wholeStore = termScope(nil)

// verdict reports whether stem is common within the where clause of
// scope (termScope), and whether that is known (lately); when it is not
// common, ids are its documents, known lately when fresh.
func (c *termCache) verdict(scope, stem string, now time.Time) (common bool, ids []string, fresh, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[scope+"\x00"+stem]
	if !ok || !now.Before(v.until) {
		return false, nil, false, false
	}
	return v.ids == nil, v.ids, v.ids != nil && now.Before(v.idsUntil), true
}

// claim returns those of stems within scope not being counted already,
// marked as being counted until release.
func (c *termCache) claim(scope string, stems []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counting == nil {
		c.counting = map[string]bool{}
	}
	var out []string
	for _, st := range stems {
		if key := scope + "\x00" + st; !c.counting[key] {
			c.counting[key] = true
			out = append(out, st)
		}
	}
	return out
}

// release ends claim's mark of stems within scope.
func (c *termCache) release(scope string, stems []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range stems {
		delete(c.counting, scope+"\x00"+st)
	}
}

// writeCount is what a count notes before it asks Chroma, for set.
func (c *termCache) writeCount() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// describe records the conditions scope's where clause holds exactly
// (whereConds), so that a write can tell which of its lists a document
// joins (written).
func (c *termCache) describe(scope string, conds []core.Cond) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clauses == nil || len(c.clauses) >= termCacheMax {
		c.clauses = map[string][]core.Cond{}
	}
	c.clauses[scope] = conds
}

// set records, for each of stems, its documents within the where clause
// of scope (ids[i]), or that it is common (ids[i] nil), as counted from
// before the write numbered since (writeCount): when this process wrote
// meanwhile, the lists are recorded stale (their verdicts stand).
func (c *termCache) set(scope string, stems []string, ids [][]string, since uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idsUntil := now.Add(termIDsFor)
	if c.writes != since {
		idsUntil = time.Time{}
	}
	n := 0
	for _, l := range ids {
		n += len(l)
	}
	if c.verdicts == nil || len(c.verdicts)+len(stems) > termCacheMax || c.ids+n > termIDsMax {
		c.verdicts, c.ids = map[string]termVerdict{}, 0
	}
	for i, st := range stems {
		v := termVerdict{scope: scope, stem: st, ids: ids[i], until: now.Add(termVerdictFor), idsUntil: idsUntil}
		key := scope + "\x00" + st
		c.ids += len(v.ids) - len(c.verdicts[key].ids)
		c.verdicts[key] = v
	}
}

// written updates the rare terms' documents for docs (just written):
// a document holding a term (in a form $contains finds) joins the term's
// list within each where clause that admits it (the whole store's, and a
// filter's whose conditions it meets: describe), or makes it common past
// most; a list whose clause it does not meet stays as it was (a chat's
// turns leave the memories' and the FAQ's lists fresh), and one whose
// clause is not held exactly becomes stale. A common term stays common.
func (c *termCache) written(docs []core.Document, most int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	if len(docs) > writtenScanMax {
		c.verdicts, c.ids = nil, 0
		return
	}
	// A text in lower case holds every ASCII stem that one of its forms
	// (hasForm) holds: a cheap test first, as up to termCacheMax
	// verdicts are checked under the lock the searches take
	// (BenchmarkTermCacheWritten: 20,000 lists and a chat's two turns,
	// 24 → 1 ms).
	lower := make([]string, len(docs))
	for i, d := range docs {
		lower[i] = strings.ToLower(d.Text)
	}
	for key, v := range c.verdicts {
		if v.ids == nil {
			continue
		}
		conds, known := c.clauses[v.scope]
		ascii, changed := isASCII(v.stem), false
		for i := range docs {
			d := &docs[i]
			if ascii && !strings.Contains(lower[i], v.stem) || !hasForm(d.Text, v.stem) {
				continue
			}
			switch {
			case v.scope != wholeStore && !known:
				v.idsUntil, changed = time.Time{}, true
			case (v.scope == wholeStore || core.AdmitsAll(conds, d)) && !slices.Contains(v.ids, d.ID):
				v.ids, changed = append(slices.Clone(v.ids), d.ID), true
				c.ids++
			}
		}
		if len(v.ids) > most {
			c.ids -= len(v.ids)
			v.ids, v.until, changed = nil, now.Add(termVerdictFor), true
		}
		if changed {
			c.verdicts[key] = v
		}
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
