package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/storagetest"
)

// chromaServer is a real Chroma 1.0 server (npm chromadb@3.0.6, installed
// by `make chroma` into .cache/chroma), run for the side-by-side rows of
// BenchmarkSearchTargets, and the one collection the bench fills.
type chromaServer struct {
	url    string // the server, as VECTORDB_URL names it
	base   string // …/api/v2/tenants/default_tenant/databases/default_database
	coll   string // the collection's id
	client *http.Client
}

// startChroma starts Chroma (storagetest.StartChroma) for the bench. Without
// the launcher it fails the bench under CI=true (the comparison is an
// acceptance row) and otherwise leaves the rows out, saying why, rather than
// skipping the SQLite rows with them.
func startChroma(b testing.TB) *chromaServer {
	bin := storagetest.ChromaBin()
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("Chroma: no launcher at %s (make chroma installs it; the bench needs it under CI=true)", bin)
		}
		fmt.Printf("Chroma rows left out: no launcher at %s (make chroma installs it)\n", bin)
		return nil
	}
	srv := storagetest.StartChroma(b)
	root := srv.URL + "/api/v2"
	c := &chromaServer{url: srv.URL, base: root + "/tenants/default_tenant/databases/default_database",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	var version string
	c.call(b, "GET", root+"/version", nil, &version)
	fmt.Printf("Chroma %s at %s (%s)\n", version, srv.URL, bin)
	return c
}

func (c *chromaServer) call(b testing.TB, method, url string, body, out any) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			b.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		b.Fatalf("Chroma %s %s: status %d %s %v", method, url, resp.StatusCode, data, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			b.Fatalf("Chroma %s %s: %v", method, url, err)
		}
	}
}

// load creates a cosine collection holding the first n texts, with their
// vectors and the metadata Ada keeps for a memory, 100 per add call.
func (c *chromaServer) load(b *testing.B, cp *corpus, n int) {
	var coll struct{ ID string }
	c.call(b, "POST", c.base+"/collections", map[string]any{"name": "ada-bench-" + strconv.Itoa(n),
		"metadata": map[string]any{"hnsw:space": "cosine"}}, &coll)
	c.coll = coll.ID
	for start := 0; start < n; start += 100 {
		end := min(start+100, n)
		ids, docs, metas := make([]string, 0, 100), make([]string, 0, 100), make([]map[string]any, 0, 100)
		for i := start; i < end; i++ {
			ids, docs = append(ids, cp.id(i)), append(docs, cp.texts[i])
			metas = append(metas, map[string]any{"type": "memory", "scope": "global", "importance": 1 + i%5, "source": "import"})
		}
		c.call(b, "POST", c.base+"/collections/"+c.coll+"/add", map[string]any{"ids": ids, "embeddings": cp.vecs[start:end],
			"documents": docs, "metadatas": metas}, nil)
	}
}

// chromaResult is the part of a query answer the bench reads.
type chromaResult struct {
	IDs [][]string `json:"ids"`
}

// query is a memory search as a Chroma client makes it: the text embedded
// on the client (the same hash embedder Ada runs on the server), the k
// nearest with their documents, metadata and distances, decoded.
func (c *chromaServer) query(b *testing.B, text string, k int) chromaResult {
	var out chromaResult
	c.call(b, "POST", c.base+"/collections/"+c.coll+"/query", map[string]any{
		"query_embeddings": [][]float32{embed.HashVector(text)}, "n_results": k,
		"include": []string{"documents", "metadatas", "distances"}}, &out)
	return out
}

func chromaRecall(b *testing.B, c *chromaServer, cp *corpus, n, k int) float64 {
	var sum float64
	for qi, text := range cp.queryText {
		res := c.query(b, text, k)
		var ids []int
		if len(res.IDs) > 0 {
			for _, id := range res.IDs[0] {
				ids = append(ids, indexOf(id))
			}
		}
		sum += recallOf(cp, n, qi, k, ids)
	}
	return sum / float64(len(cp.queryText))
}

// stageRow is the median time of each stage of a hybrid memory search,
// and of the whole search.
type stageRow struct {
	n                                                    int
	embed, knn, rescore, keyword, ranking, encode, whole time.Duration
}

// measureStages times each stage of a hybrid memory search on its own,
// as the core runs it (max(4·k, 20) candidates from each list, as
// DECISIONS.md says):
// embedding the query, the scan of the codes (KNN), the rest of the vector
// search (rescoring and loading, in SQLite), the keyword search, the
// core's ranking (the whole search minus the stages before it waits for),
// and encoding the answer as JSON.
func measureStages(b *testing.B, db *storage.DB, svc *core.Service, cp *corpus, n, k int) stageRow {
	ctx := context.Background()
	f := core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}
	nq, cands := len(cp.queryText), max(4*k, 20)
	med := func(fn func(i int)) time.Duration {
		quiesce()
		return pct(measureQueries(nq, fn), 50)
	}
	r := stageRow{n: n}
	r.embed = med(func(i int) {
		if _, err := (embed.Hash{}).Embed(ctx, []string{cp.queryText[i]}); err != nil {
			b.Fatal(err)
		}
	})
	r.knn = med(func(i int) { db.ScanCodes(core.VectorQuery{Filter: f, Vector: cp.queries[i], K: cands}) })
	search := med(func(i int) {
		if _, err := db.Search(ctx, core.VectorQuery{Filter: f, Vector: cp.queries[i], K: cands}); err != nil {
			b.Fatal(err)
		}
	})
	r.rescore = max(0, search-r.knn)
	r.keyword = med(func(i int) {
		if _, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: f, Text: cp.queryText[i], K: cands}); err != nil {
			b.Fatal(err)
		}
	})
	var items [][]core.Memory
	whole := med(func(i int) { items = append(items, searchInProcess(b, svc, cp.queryText[i], k)) })
	// The vector and keyword searches run at once (searchRelevant): the
	// whole waits for the longer.
	r.whole = whole
	r.ranking = max(0, whole-r.embed-max(search, r.keyword))
	r.encode = med(func(i int) {
		if _, err := json.Marshal(map[string]any{"items": items[i%len(items)]}); err != nil {
			b.Fatal(err)
		}
	})
	return r
}

func printStages(rows []stageRow) {
	fmt.Printf("\nShare of time per stage of a hybrid memory search, in process (median of each stage timed alone; the vector\nstages, KNN and rescore+load, run while the keyword search does, so the whole search is shorter than the sum)\n")
	fmt.Printf("%-8s | %-15s | %-15s | %-15s | %-15s | %-15s | %-15s | %-8s | %s\n", "memories", "embed", "KNN (codes)", "rescore+load", "keyword", "ranking (core)", "JSON", "sum", "whole search")
	for _, r := range rows {
		sum := r.embed + r.knn + r.rescore + r.keyword + r.ranking + r.encode
		cell := func(d time.Duration) string {
			return fmt.Sprintf("%4.0f µs %3.0f %%", float64(d)/1e3, 100*float64(d)/float64(sum))
		}
		fmt.Printf("%-8d | %-15s | %-15s | %-15s | %-15s | %-15s | %-15s | %.2f ms | %.2f ms\n", r.n, cell(r.embed), cell(r.knn),
			cell(r.rescore), cell(r.keyword), cell(r.ranking), cell(r.encode), msf(sum), msf(r.whole))
	}
}
