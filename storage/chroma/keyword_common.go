package chroma

import (
	"encoding/json"
	"sync"
	"time"
)

// commonCache remembers, per where clause, the terms a keyword search found
// too common (more than maxTermDocs documents), so that the next search
// leaves them out before asking Chroma: a common word would otherwise cut
// the candidates' get every time and cost two more requests. A term's
// documents only grow but by deletions, so an entry is believed for
// commonFor, then asked again; at most commonMax entries are kept (when
// full, the set starts again).
type commonCache struct {
	mu    sync.Mutex
	until map[string]time.Time
}

const (
	commonFor = 10 * time.Minute
	commonMax = 10000
)

func commonKey(where map[string]any, stem string) string {
	w, _ := json.Marshal(where) // sorted keys: the same clause, the same key
	return string(w) + "\x00" + stem
}

// known reports whether stem was found common within where lately.
func (c *commonCache) known(where map[string]any, stem string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Before(c.until[commonKey(where, stem)])
}

// add records that stems are common within where.
func (c *commonCache) add(where map[string]any, stems []string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.until == nil || len(c.until)+len(stems) > commonMax {
		c.until = map[string]time.Time{}
	}
	for _, st := range stems {
		c.until[commonKey(where, st)] = now.Add(commonFor)
	}
}
