package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// flakyEmbedder is another embedder (by name) that fails after a number of
// batches, as a remote embedder going down in the middle of a reindex would.
type flakyEmbedder struct {
	embed.Hash
	failAfter, calls int
}

func (f *flakyEmbedder) Name() string { return "test:other" }

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if f.failAfter > 0 && f.calls > f.failAfter {
		return nil, errors.New("embedder went away")
	}
	return f.Hash.Embed(ctx, texts)
}

func TestReindexResumesAfterAFailure(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.CheckEmbedder(ctx, embed.HashName); err != nil {
		t.Fatal(err)
	}
	var docs []core.Document
	for i := range 10 {
		docs = append(docs, memoryDoc(fmt.Sprintf("memory %d", i), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	emb := &flakyEmbedder{failAfter: 2}
	var progress []ReindexProgress
	record := func(p ReindexProgress) { progress = append(progress, p) }
	if err := db.Reindex(ctx, emb, 3, record); err == nil {
		t.Fatal("the failing run must report the failure")
	}
	if err := db.CheckEmbedder(ctx, emb.Name()); err == nil {
		t.Fatal("an unfinished reindex must not switch the store's embedder")
	}
	emb.failAfter, emb.calls = 0, 0
	progress = nil
	if err := db.Reindex(ctx, emb, 3, record); err != nil {
		t.Fatal(err)
	}
	if emb.calls != 2 || progress[0].Done != 9 || progress[len(progress)-1].Done != 10 || progress[0].Total != 10 {
		t.Fatalf("the second run must resume after the 6 done documents: calls %d, progress %+v", emb.calls, progress)
	}
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		t.Fatalf("after a complete reindex the new embedder is the store's: %v", err)
	}
}
