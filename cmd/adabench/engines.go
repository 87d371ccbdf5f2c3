package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

const dimensions = core.Dim

// engine stores a prefix of a dataset and finds the nearest stored vectors.
// Results are dataset indexes. isMemory tells which documents are memories,
// the type searched for; the others are conversation turns.
type engine interface {
	insert(ctx context.Context, d *dataset, from, to, batch int, isMemory func(int) bool) error
	search(ctx context.Context, q []float32, k int) ([]int, error)
	Close() error
}

// ada is the real store: storage.DB's Put and Search.
type ada struct {
	db    *storage.DB
	path  string
	index map[string]int
	conv  string
	// filter is what a search filters on (searchFilter when zero).
	filter core.Filter
}

// searchFilter is the filter of the ada rows: the memories, as the plain
// table holds them.
var searchFilter = core.Filter{Type: core.DocMemory}

// benchScope is the scope of every hundredth document (isScoped).
const benchScope = "entity:bench"

func isScoped(i int) bool { return i%100 == 50 }

// with returns a's store searched with filter f.
func (a *ada) with(f core.Filter) *ada {
	b := *a
	b.filter = f
	return &b
}

// restart closes the store and opens it again, and returns how long Open
// took and how long until its vector index was loaded.
func (a *ada) restart(ctx context.Context) (open, loaded time.Duration, err error) {
	if err := a.db.Close(); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if a.db, err = storage.Open(ctx, a.path); err != nil {
		return 0, 0, err
	}
	open = time.Since(t0)
	a.db.VectorIndexLen()
	return open, time.Since(t0), nil
}

func openAda(ctx context.Context, path string) (*ada, error) {
	db, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &ada{db: db, path: path, index: map[string]int{}, conv: core.NewConversationID()}, nil
}

func (a *ada) insert(ctx context.Context, d *dataset, from, to, batch int, isMemory func(int) bool) error {
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]core.Document, 0, batch)
	for start := from; start < to; start += batch {
		docs = docs[:0]
		for i := start; i < min(start+batch, to); i++ {
			doc := core.Document{ID: core.NewDocID(), Text: d.texts[i], Embedding: d.vecs[i],
				Meta: core.Metadata{Type: core.DocMemory, Timestamp: ts.Add(time.Duration(i) * time.Second),
					Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 3}}
			if isScoped(i) {
				doc.Meta.Scope = benchScope
			}
			if !isMemory(i) {
				turn := i % 50
				doc.Meta.Type, doc.Meta.Importance = core.DocTurn, 0
				doc.Meta.ConversationID, doc.Meta.Role, doc.Meta.TurnIndex = a.conv, "user", &turn
			}
			a.index[doc.ID] = i
			docs = append(docs, doc)
		}
		if err := a.db.Put(ctx, docs...); err != nil {
			return err
		}
	}
	return nil
}

func (a *ada) search(ctx context.Context, q []float32, k int) ([]int, error) {
	f := a.filter
	if f.Type == "" && f.ConversationID == "" && len(f.Scopes) == 0 {
		f = searchFilter
	}
	hits, err := a.db.Search(ctx, core.VectorQuery{Filter: f, Vector: q, K: k})
	if err != nil {
		return nil, err
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = a.index[h.ID]
	}
	return out, nil
}

func (a *ada) Close() error { return a.db.Close() }

// plain is the baseline: one untuned vec0 table of float32 vectors with the
// cosine metric, queried with MATCH and k. With typed set, it also has a
// doc_type metadata column, filtered inside the scan, so that it can answer
// the selective query at all.
type plain struct {
	db    *sql.DB
	typed bool
}

func openPlain(path string, typed bool) (*plain, error) {
	db, err := sql.Open("sqlite3", sqliteDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	ddl := "CREATE VIRTUAL TABLE vec USING vec0(embedding float[768] distance_metric=cosine)"
	if typed {
		ddl = "CREATE VIRTUAL TABLE vec USING vec0(doc_type text, embedding float[768] distance_metric=cosine)"
	}
	if _, err := db.Exec(ddl); err != nil {
		db.Close()
		return nil, err
	}
	return &plain{db: db, typed: typed}, nil
}

// sqliteDSN gives the baseline the connection settings Ada's store uses.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_cache_size", "-32000")
	return "file:" + path + "?" + q.Encode()
}

func (p *plain) insert(ctx context.Context, d *dataset, from, to, batch int, isMemory func(int) bool) error {
	ins := "INSERT INTO vec (rowid, embedding) VALUES (?, ?)"
	if p.typed {
		ins = "INSERT INTO vec (rowid, embedding, doc_type) VALUES (?, ?, ?)"
	}
	for start := from; start < to; start += batch {
		err := func() error {
			tx, err := p.db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			stmt, err := tx.PrepareContext(ctx, ins)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for i := start; i < min(start+batch, to); i++ {
				blob, err := sqlite_vec.SerializeFloat32(d.vecs[i])
				if err != nil {
					return err
				}
				args := []any{i + 1, blob}
				if p.typed {
					t := core.DocTurn
					if isMemory(i) {
						t = core.DocMemory
					}
					args = append(args, string(t))
				}
				if _, err := stmt.ExecContext(ctx, args...); err != nil {
					return err
				}
			}
			return tx.Commit()
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *plain) search(ctx context.Context, q []float32, k int) ([]int, error) {
	blob, err := sqlite_vec.SerializeFloat32(q)
	if err != nil {
		return nil, err
	}
	query := "SELECT rowid FROM vec WHERE embedding MATCH ? AND k = ?"
	args := []any{blob, k}
	if p.typed {
		query += " AND doc_type = ?"
		args = append(args, string(core.DocMemory))
	}
	rows, err := p.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var rowid int
		if err := rows.Scan(&rowid); err != nil {
			return nil, err
		}
		out = append(out, rowid-1)
	}
	return out, rows.Err()
}

func (p *plain) Close() error { return p.db.Close() }

func versions() (vec, sqlite string, err error) {
	sqlite_vec.Auto()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	err = db.QueryRow("SELECT vec_version(), sqlite_version()").Scan(&vec, &sqlite)
	if err != nil {
		err = fmt.Errorf("sqlite-vec is not loaded: %w", err)
	}
	return vec, sqlite, err
}
