package core

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// heardForgotten records what a ForgetListener is told.
type heardForgotten struct {
	mu  sync.Mutex
	ids []string
}

func (h *heardForgotten) DocumentsForgotten(_ context.Context, ids []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids = append(h.ids, ids...)
	return nil
}

func (*heardForgotten) PersonForgotten(context.Context, string, string, time.Time) error { return nil }
func (*heardForgotten) RoomForgotten(context.Context, string) error                      { return nil }

// TestCorrectionTellsOfTheRetiredMemory: an automatic memory that a
// correction retires leaves the documents, and the listener hears of it
// then, as of every deletion: a copy the bridge keeps quoting it (`!ada
// why`) is dropped by its id, and would otherwise outlive the forgetting
// of the correction (the listener then hears of the newer memory alone).
func TestCorrectionTellsOfTheRetiredMemory(t *testing.T) {
	opts := unitOptions()
	opts.AutoMemory = true
	llm := &fakeLLM{replies: []reply{
		{tokens: []string{"Noted."}},
		{tokens: []string{`{"facts":[{"text":"Sam's locker code is 1111","importance":4,"replaces":[]}]}`}},
		{tokens: []string{"Noted."}},
		{tokens: []string{`{"facts":[{"text":"Sam's locker code is 2222","importance":4,"replaces":["m1"]}]}`}},
	}}
	heard := &heardForgotten{}
	st := newFakeStore(&journal{})
	svc := New(Deps{Store: st, Embedder: fakeEmbedder{}, LLM: llm, Forgotten: heard, Now: func() time.Time { return testClock }}, opts)
	t.Cleanup(svc.Close)
	ctx := context.Background()
	ask := func(prompt string) {
		t.Helper()
		if _, err := svc.Chat(ctx, ChatRequest{Prompt: prompt, Store: true}, func(Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		svc.Wait()
	}
	memories := func() []Document {
		t.Helper()
		docs, err := st.List(ctx, Filter{Type: DocMemory}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	ask("my locker code is 1111")
	first := memories()
	if len(first) != 1 {
		t.Fatalf("memories after the first exchange: %+v", first)
	}
	ask("no wait, my locker code is 2222")
	if now := memories(); len(now) != 1 || now[0].ID == first[0].ID {
		t.Fatalf("memories after the correction: %+v, want the first one retired", now)
	}
	heard.mu.Lock()
	defer heard.mu.Unlock()
	if !slices.Contains(heard.ids, first[0].ID) {
		t.Errorf("the listener heard of %v, not of the retired memory %s", heard.ids, first[0].ID)
	}
}
