package chroma

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// A rare word's documents known longer ago than termIDsFor are used as
// known, and counted again behind the search: the search does not wait
// for the $contains (held here until it has returned), and the searches
// after the count find what another replica wrote meanwhile.
func TestStaleTermsAreCountedBehindTheSearch(t *testing.T) {
	ctx := context.Background()
	a, b := openReplicas(t, "behind")
	now := time.Now().UTC()
	first := testMemory("zanzibar notes", now)
	if err := a.Put(ctx, first); err != nil {
		t.Fatal(err)
	}
	memories := core.KeywordQuery{Text: "zanzibar", K: 10, Filter: core.Filter{Type: core.DocMemory}}
	if hits, err := a.KeywordSearch(ctx, memories); err != nil || len(hits) != 1 {
		t.Fatalf("first search: %d hits, %v; want 1", len(hits), err)
	}
	second := testMemory("zanzibar again", now)
	if err := b.Put(ctx, second); err != nil {
		t.Fatal(err)
	}
	scope := termScope(whereOf(memories.Filter))
	a.terms.mu.Lock()
	v := a.terms.verdicts[scope+"\x00zanzibar"]
	v.idsUntil = time.Time{} // a minute has passed
	a.terms.verdicts[scope+"\x00zanzibar"] = v
	a.terms.mu.Unlock()
	held, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let)
	a.c.http.Transport = holdContains{next: http.DefaultTransport, held: held, release: release}
	done := make(chan []core.KeywordHit)
	go func() {
		hits, err := a.KeywordSearch(ctx, memories)
		if err != nil {
			t.Error(err)
		}
		done <- hits
	}()
	select {
	case hits := <-done:
		if len(hits) != 1 || hits[0].ID != first.ID {
			t.Errorf("the search with stale documents: %d hits, want the one known", len(hits))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the search waited for the $contains count")
	}
	<-held // the count behind it was sent
	let()
	a.behind.wait()
	if _, ids, fresh, _ := a.terms.verdict(scope, "zanzibar", time.Now()); !fresh || len(ids) != 2 {
		t.Fatalf("after the count behind the search: %v (fresh %v), want both memories", ids, fresh)
	}
	if hits, err := a.KeywordSearch(ctx, memories); err != nil || len(hits) != 2 {
		t.Fatalf("the next search: %d hits, %v; want 2 (the other replica's too)", len(hits), err)
	}
}

// holdContains holds each request with a where_document clause until
// release is closed, saying so on held.
type holdContains struct {
	next    http.RoundTripper
	held    chan struct{}
	release chan struct{}
}

func (h holdContains) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		if strings.Contains(string(data), "where_document") {
			select {
			case h.held <- struct{}{}:
			default:
			}
			<-h.release
		}
	}
	return h.next.RoundTrip(r)
}
