package core

import (
	"context"
	"testing"
	"time"
)

// TestChatTimeoutIsOneKindWherever (issue 26): a chat whose caller's
// deadline passes while the question is embedded (before the model is
// asked) ends as a timeout, KindCanceled (504 over HTTP, where the server
// says the same), not as the embedder failing (500).
func TestChatTimeoutIsOneKindWherever(t *testing.T) {
	u := newUnit(t, unitOptions(), &fakeLLM{replies: []reply{{tokens: []string{"late"}}}})
	// What the remote embedder answers when the caller's deadline passes.
	u.svc.embedder = fakeEmbedder{err: Wrap(KindUpstream, context.DeadlineExceeded, "embedding with fake failed: timed out")}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := u.svc.Chat(ctx, ChatRequest{Prompt: "Which tea do I drink?", Store: true}, func(Event) error { return nil })
	if KindOf(err) != KindCanceled {
		t.Fatalf("a chat that timed out while embedding: %v (kind %s), want KindCanceled", err, KindOf(err))
	}
}
