package storage

import (
	"sync"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// docCacheSize bounds the documents kept decoded (about 4 KiB each: text,
// metadata and the 3 KiB embedding), 64 MiB in all. A vector search
// rescores its cached candidates in Go and reads only the others from
// SQLite (approximateSearch), so the more of a store's searches the cache
// serves, the fewer reads they make (docs/operators.md, "Performance").
const docCacheSize = 16384

// docCache keeps the documents that searches returned lately, decoded, by
// rowid. A hybrid memory search loads about 80 (max(4·k, 20) from each of
// the vector and the keyword search); reading and decoding them (a row,
// its JSON metadata, its embedding) is a large share of a search's time
// (make bench, stage shares), and a store's searches keep
// finding the same documents. The cached documents are shared: callers
// must not change them in place (they copy a Document to change it).
//
// Entries follow the writes: every committed change of a document (it
// records a vecindex.Op for its rowid) removes its entry and starts a new epoch,
// and a document read before the change began cannot be added after it
// (add checks the epoch its reader started in). A reader whose snapshot is
// older than a write may still find the newer version of a document in the
// cache; callers check the fields their filter depends on (cachedFor).
type docCache struct {
	mu    sync.Mutex
	epoch uint64
	docs  map[int64]core.Document
}

func newDocCache() *docCache { return &docCache{docs: make(map[int64]core.Document)} }

// begin returns the epoch a reader starts in, before its transaction.
func (c *docCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

func (c *docCache) get(rowid int64) (core.Document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[rowid]
	return d, ok
}

// add keeps d unless a write has committed since the reader's epoch. When
// full, an arbitrary entry makes room (Go's map order is random).
func (c *docCache) add(epoch uint64, rowid int64, d core.Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if len(c.docs) >= docCacheSize {
		for r := range c.docs {
			delete(c.docs, r)
			break
		}
	}
	c.docs[rowid] = d
}

// forget removes the documents a committed transaction changed.
func (c *docCache) forget(ops []vecindex.Op) {
	if len(ops) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for i := range ops {
		delete(c.docs, ops[i].Rowid)
	}
}

// cachedFor reports whether d still satisfies the conditions of a
// cacheable filter that the approximate search applies (core.Filter.SearchConds).
func cachedFor(d *core.Document, applied []core.Cond) bool { return core.AdmitsAll(applied, d) }
