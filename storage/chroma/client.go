package chroma

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// client speaks the few calls of Chroma's HTTP API v2 that Ada needs.
type client struct {
	root string // …/api/v2
	db   string // …/api/v2/tenants/<t>/databases/<d>
	http *http.Client
	// token (CHROMA_TOKEN) is a secret: only ever in the request headers,
	// never in an error or a log line.
	token string
}

func newClient(rawURL string) (*client, string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, "", "", core.Errorf(core.KindInvalid, "VECTORDB_URL: not a URL")
	}
	q := u.Query()
	tenant, database := cmpOr(q.Get("tenant"), "default_tenant"), cmpOr(q.Get("database"), "default_database")
	u.RawQuery, u.User = "", nil
	root := strings.TrimSuffix(u.String(), "/") + "/api/v2"
	// The address stays out of the errors' messages, which clients
	// see; the cause, logged, names it.
	c := &client{root: root, http: &http.Client{Timeout: 30 * time.Second},
		db: root + "/tenants/" + url.PathEscape(tenant) + "/databases/" + url.PathEscape(database)}
	return c, tenant, database, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// statusError is a non-2xx answer.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.status, e.body) }

// call sends body as JSON and decodes the answer into out (when not nil).
// An unreachable server or a 5xx is KindUnavailable: the store is down.
func (c *client) call(ctx context.Context, method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return core.Wrap(core.KindInternal, err, "encode Chroma request")
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return core.Wrap(core.KindInternal, err, "Chroma request")
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		// Chroma's token auth reads one of these two, as its server is
		// configured (CHROMA_AUTH_TOKEN_TRANSPORT_HEADER); both go, so the
		// operator needs to set only the token.
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("X-Chroma-Token", c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return core.Wrap(core.KindCanceled, ctx.Err(), "request cancelled")
		}
		return core.Wrap(core.KindUnavailable, err, "the vector store (Chroma) is unreachable")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return core.Wrap(core.KindUnavailable, err, "the vector store (Chroma) broke off its answer")
	}
	if resp.StatusCode/100 != 2 {
		se := &statusError{status: resp.StatusCode, body: strings.TrimSpace(string(data))}
		kind := core.KindInternal
		if resp.StatusCode >= 500 {
			kind = core.KindUnavailable
		}
		return core.Wrap(kind, se, "the vector store (Chroma) refused %s %s", method, strings.TrimPrefix(url, c.root))
	}
	if out != nil {
		// Numbers as written: a timestamp in nanoseconds does not fit a
		// float64's 53 bits.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(out); err != nil {
			return core.Wrap(core.KindInternal, err, "decode Chroma answer")
		}
	}
	return nil
}

func isStatus(err error, status int) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == status
}

// heartbeat is the server's clock in nanoseconds: it answers.
func (c *client) heartbeat(ctx context.Context) (int64, error) {
	var hb map[string]json.Number
	if err := c.call(ctx, http.MethodGet, c.root+"/heartbeat", nil, &hb); err != nil {
		return 0, err
	}
	return hb["nanosecond heartbeat"].Int64()
}

func (c *client) version(ctx context.Context) (string, error) {
	var v string
	err := c.call(ctx, http.MethodGet, c.root+"/version", nil, &v)
	return v, err
}

// ensureDatabase creates the tenant's database unless it exists.
func (c *client) ensureDatabase(ctx context.Context, tenant, database string) error {
	err := c.call(ctx, http.MethodGet, c.db, nil, nil)
	if err == nil || !(isStatus(err, 404) || isStatus(err, 400)) {
		return err
	}
	err = c.call(ctx, http.MethodPost, c.root+"/tenants/"+url.PathEscape(tenant)+"/databases", map[string]string{"name": database}, nil)
	if isStatus(err, 409) {
		return nil // another replica created it meanwhile
	}
	return err
}

// collection creates (or opens) a cosine collection and returns its id.
// The documents' collection (searched) is created with hnsw's settings
// and given hnswSearchEF when it exists already: it is the
// one setting Chroma changes on a built index.
func (c *client) collection(ctx context.Context, name string, searched bool) (string, error) {
	meta := map[string]any{"hnsw:space": "cosine"}
	if searched {
		meta["hnsw:search_ef"], meta["hnsw:construction_ef"], meta["hnsw:M"] = hnswSearchEF, hnswConstructionEF, hnswM
	}
	var coll struct {
		ID            string `json:"id"`
		Configuration struct {
			HNSW struct {
				EFSearch int `json:"ef_search"`
			} `json:"hnsw"`
		} `json:"configuration_json"`
	}
	err := c.call(ctx, http.MethodPost, c.db+"/collections", map[string]any{"name": name, "get_or_create": true, "metadata": meta}, &coll)
	if err != nil || !searched || coll.Configuration.HNSW.EFSearch >= hnswSearchEF {
		return coll.ID, err
	}
	return coll.ID, c.setSearchWidth(ctx, coll.ID, hnswSearchEF)
}

// setSearchWidth gives collection id the HNSW search width ef; Chroma
// applies it when it next loads the index.
func (c *client) setSearchWidth(ctx context.Context, id string, ef int) error {
	return c.call(ctx, http.MethodPut, c.db+"/collections/"+id,
		map[string]any{"new_configuration": map[string]any{"hnsw": map[string]any{"ef_search": ef}}}, nil)
}

// The documents' HNSW index (docs/operators.md, "Chroma's settings and
// what they cost", has the measurements of BenchmarkSearchWidth). With
// Chroma 1.0's defaults (M 16, construction 100, search 100) a search at
// 100k documents found 0.90 of the exact top 10, with search 200 0.94,
// with 400 0.97 (SQLite's is 0.97) for a few ms more a query; the search width changes neither
// memory nor inserts, and Chroma applies a new one when it next loads the
// index (its restart). A denser graph (hnswM, hnswConstructionEF) costs
// memory and inserts, and is kept at Chroma's defaults.
const (
	hnswSearchEF       = 400
	hnswConstructionEF = 100
	hnswM              = 16
)

// records is the columns of a write or of a get's answer.
type records struct {
	IDs        []string         `json:"ids"`
	Embeddings [][]float32      `json:"embeddings,omitempty"`
	Documents  []string         `json:"documents,omitempty"`
	Metadatas  []map[string]any `json:"metadatas,omitempty"`
}

func (c *client) upsert(ctx context.Context, coll string, r records) error {
	if len(r.IDs) == 0 {
		return nil
	}
	return c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/upsert", r, nil)
}

// getRequest selects records by ids, metadata (where) and text
// (whereDocument); include names the columns wanted.
type getRequest struct {
	IDs           []string       `json:"ids,omitempty"`
	Where         map[string]any `json:"where,omitempty"`
	WhereDocument map[string]any `json:"where_document,omitempty"`
	Limit         *int           `json:"limit,omitempty"`
	Offset        int            `json:"offset,omitempty"`
	Include       []string       `json:"include"`
}

// getPage is how many records one get returns at most; metaPage, when
// it returns neither texts nor vectors. Chroma pages by offset, which
// costs more the further the page: a read of every turn's metadata takes
// a few large pages rather than many small ones.
const (
	getPage  = 1000
	metaPage = 10000
)

// get returns every record r selects, page by page (or up to *r.Limit).
func (c *client) get(ctx context.Context, coll string, r getRequest) (records, error) {
	var all records
	err := c.pages(ctx, coll, r, func(got records) (bool, error) {
		all.IDs = append(all.IDs, got.IDs...)
		all.Embeddings = append(all.Embeddings, got.Embeddings...)
		all.Documents = append(all.Documents, got.Documents...)
		all.Metadatas = append(all.Metadatas, got.Metadatas...)
		return true, nil
	})
	return all, err
}

// getOnce is one get request, whatever its size: for a get whose clause
// costs Chroma more than its answer (each page of get evaluates it
// again).
func (c *client) getOnce(ctx context.Context, coll string, r getRequest) (records, error) {
	var got records
	err := c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/get", r, &got)
	return got, err
}

// pages hands each page of the records r selects (up to *r.Limit) to
// each, in order, until each returns false or an error: a reader that
// may stop early (Count) reads no further than it needs.
func (c *client) pages(ctx context.Context, coll string, r getRequest, each func(records) (more bool, err error)) error {
	want := -1
	if r.Limit != nil {
		want = *r.Limit
	}
	size := getPage
	if !slices.Contains(r.Include, "documents") && !slices.Contains(r.Include, "embeddings") {
		size = metaPage
	}
	for read := 0; ; {
		page := size
		if want >= 0 {
			page = min(page, want-read)
		}
		r.Limit = &page
		var got records
		if err := c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/get", r, &got); err != nil {
			return err
		}
		read += len(got.IDs)
		r.Offset += len(got.IDs)
		if more, err := each(got); err != nil || !more || len(got.IDs) < page || (want >= 0 && read >= want) {
			return err
		}
	}
}

// queryAnswer is a query's answer for one query vector.
type queryAnswer struct {
	IDs        [][]string         `json:"ids"`
	Embeddings [][][]float32      `json:"embeddings"`
	Documents  [][]string         `json:"documents"`
	Metadatas  [][]map[string]any `json:"metadatas"`
	Distances  [][]float64        `json:"distances"`
}

// query returns the n records of where nearest to vec (HNSW, approximate).
func (c *client) query(ctx context.Context, coll string, vec []float32, n int, where map[string]any) (records, error) {
	body := map[string]any{"query_embeddings": [][]float32{vec}, "n_results": n,
		"include": []string{"documents", "metadatas", "embeddings", "distances"}}
	if where != nil {
		body["where"] = where
	}
	var a queryAnswer
	if err := c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/query", body, &a); err != nil {
		return records{}, err
	}
	if len(a.IDs) == 0 {
		return records{}, nil
	}
	return records{IDs: a.IDs[0], Embeddings: first(a.Embeddings), Documents: first(a.Documents), Metadatas: first(a.Metadatas)}, nil
}

// nearest returns the ids and metadata of the n records nearest to vec in
// the whole collection, nearest first (HNSW, approximate, no where: see
// filterShares).
func (c *client) nearest(ctx context.Context, coll string, vec []float32, n int) (records, error) {
	body := map[string]any{"query_embeddings": [][]float32{vec}, "n_results": n, "include": []string{"metadatas"}}
	var a queryAnswer
	if err := c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/query", body, &a); err != nil {
		return records{}, err
	}
	if len(a.IDs) == 0 {
		return records{}, nil
	}
	return records{IDs: a.IDs[0], Metadatas: first(a.Metadatas)}, nil
}

func first[T any](s [][]T) []T {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// deleteIDs deletes records by id, in pages.
func (c *client) deleteIDs(ctx context.Context, coll string, ids []string) error {
	for start := 0; start < len(ids); start += getPage {
		err := c.call(ctx, http.MethodPost, c.db+"/collections/"+coll+"/delete",
			map[string]any{"ids": ids[start:min(start+getPage, len(ids))]}, nil)
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *client) count(ctx context.Context, coll string) (int, error) {
	var n int
	err := c.call(ctx, http.MethodGet, c.db+"/collections/"+coll+"/count", nil, &n)
	return n, err
}
