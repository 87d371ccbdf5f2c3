package chroma

import (
	"context"
	"net/http"
	"testing"

	"github.com/ada-chat/ada/storage/storagetest"
)

// A documents' collection made before Ada set its HNSW search width
// (Chroma's default) gets it at Open; a new one is made with it.
func TestOpenWidensHNSWSearch(t *testing.T) {
	ctx := context.Background()
	srv := storagetest.StartChroma(t)
	c, _, _, err := newClient(srv.URL + "?database=hnsw")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ensureDatabase(ctx, "default_tenant", "hnsw"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.collection(ctx, docsName, false); err != nil {
		t.Fatal(err)
	}
	efSearch := func(database string) int {
		return collectionEF(t, c, srv.URL+"/api/v2/tenants/default_tenant/databases/"+database+"/collections/"+docsName)
	}
	if got := efSearch("hnsw"); got >= hnswSearchEF {
		t.Fatalf("Chroma's default ef_search is %d: the test needs one below %d", got, hnswSearchEF)
	}
	for _, database := range []string{"hnsw", "fresh"} {
		if _, err := Open(ctx, srv.URL+"?database="+database); err != nil {
			t.Fatal(err)
		}
		if got := efSearch(database); got != hnswSearchEF {
			t.Errorf("%s: ef_search = %d, want %d", database, got, hnswSearchEF)
		}
	}
}

// collectionEF is the search width (ef_search) of the collection at url.
func collectionEF(tb testing.TB, c *client, url string) int {
	var coll struct {
		Configuration struct {
			HNSW struct {
				EFSearch int `json:"ef_search"`
			} `json:"hnsw"`
		} `json:"configuration_json"`
	}
	if err := c.call(context.Background(), http.MethodGet, url, nil, &coll); err != nil {
		tb.Fatal(err)
	}
	return coll.Configuration.HNSW.EFSearch
}
