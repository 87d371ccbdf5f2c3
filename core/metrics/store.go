package metrics

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/core"
)

// StatsReader is what the store collector reads at scrape time.
type StatsReader interface {
	Stats(ctx context.Context) (core.StoreStats, error)
}

// statsTimeout bounds a scrape's count of the documents.
const statsTimeout = 5 * time.Second

// A scrape reuses the counts an earlier scrape read for statsReuse times
// as long as reading them took. Counting is cheap on SQLite (a scrape
// then reads them again, as good as exact) and costs a read of ids on
// Chroma (the types other than turns; storage/chroma Stats): the store's
// size, not the scrape interval, must bound how much of its time goes to
// counting. On a Chroma whose count takes 1 s the gauges are up to 100 s
// old; counting takes at most 1% of the time whatever the scrape rate.
const statsReuse = 100

// storeCollector reports the documents per type and the size of the
// database's files, read when Prometheus scrapes.
type storeCollector struct {
	stats StatsReader
	log   *slog.Logger
	up    *prometheus.Desc
	docs  *prometheus.Desc
	size  *prometheus.Desc
	now   func() time.Time

	mu     sync.Mutex // held while counting: concurrent scrapes share one count
	last   core.StoreStats
	expiry time.Time // when last is too old to report
}

// RegisterStore registers the collector of the store's documents and file
// sizes on reg.
func RegisterStore(reg prometheus.Registerer, stats StatsReader, log *slog.Logger) {
	reg.MustRegister(newStoreCollector(stats, log))
}

func newStoreCollector(stats StatsReader, log *slog.Logger) *storeCollector {
	return &storeCollector{stats: stats, log: log,
		up:   prometheus.NewDesc("ada_store_up", "1 if the store answered the scrape's count of documents, 0 if not.", nil, nil),
		docs: prometheus.NewDesc("ada_store_documents", "Documents in the store, by type.", []string{"type"}, nil),
		size: prometheus.NewDesc("ada_store_file_size_bytes", "Size of the database's files: the database (db) and its write-ahead log (wal).", []string{"file"}, nil),
		now:  time.Now,
	}
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.up
	ch <- c.docs
	ch <- c.size
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	st, err := c.read()
	if err != nil {
		c.log.Warn("metrics: the store did not answer the count of documents", "error", err)
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	for _, t := range []core.DocType{core.DocPersona, core.DocFAQ, core.DocMemory, core.DocTurn, core.DocSummary} {
		ch <- prometheus.MustNewConstMetric(c.docs, prometheus.GaugeValue, float64(st.ByType[t]), string(t))
	}
	if st.Path == "" {
		return
	}
	for file, path := range map[string]string{"db": st.Path, "wal": st.Path + "-wal"} {
		var n int64
		if fi, err := os.Stat(path); err == nil {
			n = fi.Size()
		}
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), file)
	}
}

// read returns the store's counts, those of an earlier scrape while they
// are fresh enough (statsReuse). A failed count is not kept: the next
// scrape asks again.
func (c *storeCollector) read() (core.StoreStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := c.now()
	if start.Before(c.expiry) {
		return c.last, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), statsTimeout)
	defer cancel()
	st, err := c.stats.Stats(ctx)
	if err != nil {
		return st, err // expiry stays past: the next scrape asks again
	}
	end := c.now()
	c.last, c.expiry = st, end.Add(statsReuse*end.Sub(start))
	return st, nil
}
