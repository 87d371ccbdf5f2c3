package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// stage is a part of a chat's time that BenchmarkChatService reports.
type stage int

const (
	stageEmbed    stage = iota // embedding the prompt
	stageWindow                // the recent window: the newest turns and summaries
	stageFAQ                   // the FAQ search
	stageMemories              // the memory search
	stageRecall                // the search of the conversation's older turns and summaries
	stageBetween               // retrieval outside the searches above (other store calls, Go)
	stageAssemble              // from the end of retrieval to the model's call
	stageModel                 // the scripted model, over HTTP (instant)
	stageStore                 // after the model: embedding the answer, storing both turns
	stageHTTP                  // the rest: HTTP both ways, decoding, JSON, queueing background work
	stageTotal                 // the whole chat, as the client sees it
	nStages
)

var stageNames = [nStages]string{"embed", "recent window", "FAQ", "memories", "recall", "between stages",
	"assemble", "model (scripted, instant)", "store turns", "HTTP and the rest", "total"}

// timedCall is one call core made to its store, embedder or LLM.
type timedCall struct {
	stage      stage
	start, end time.Time
}

// stageClock records the calls core makes to its store, embedder and LLM,
// through the wrappers that wrap gives it (runEnv.deps).
type stageClock struct {
	mu    sync.Mutex
	calls []timedCall
}

func (c *stageClock) wrap(d *core.Deps) {
	d.Store = timedStore{Store: d.Store, clock: c}
	d.Embedder = timedEmbedder{Embedder: d.Embedder, clock: c}
	d.LLM = timedLLM{LLM: d.LLM, clock: c}
}

// start records the start of a call of stage s; the function it returns,
// its end.
func (c *stageClock) start(s stage) func() {
	start := time.Now()
	return func() {
		end := time.Now()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.calls = append(c.calls, timedCall{s, start, end})
	}
}

// take returns the calls recorded so far and forgets them.
func (c *stageClock) take() []timedCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	c.calls = nil
	return calls
}

// searchStage is the stage of a search with filter f.
func searchStage(f core.Filter) stage {
	switch {
	case f.Type == core.DocFAQ:
		return stageFAQ
	case f.Type == core.DocMemory:
		return stageMemories
	case f.ConversationID != "" && (f.Type == core.DocTurn || f.Type == core.DocSummary):
		return stageRecall
	}
	return stageBetween
}

type timedStore struct {
	core.Store
	clock *stageClock
}

func (s timedStore) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	defer s.clock.start(searchStage(q.Filter))()
	return s.Store.Search(ctx, q)
}

func (s timedStore) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	defer s.clock.start(searchStage(q.Filter))()
	return s.Store.KeywordSearch(ctx, q)
}

func (s timedStore) List(ctx context.Context, f core.Filter, limit int) ([]core.Document, error) {
	st := stageBetween
	if f.ConversationID != "" && (f.Type == core.DocTurn || f.Type == core.DocSummary) {
		st = stageWindow
	}
	defer s.clock.start(st)()
	return s.Store.List(ctx, f, limit)
}

func (s timedStore) Put(ctx context.Context, docs ...core.Document) error {
	st := stageStore
	for _, d := range docs {
		if d.Meta.Type != core.DocTurn {
			st = stageBetween
		}
	}
	defer s.clock.start(st)()
	return s.Store.Put(ctx, docs...)
}

type timedEmbedder struct {
	core.Embedder
	clock *stageClock
}

func (e timedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	defer e.clock.start(stageEmbed)()
	return e.Embedder.Embed(ctx, texts)
}

type timedLLM struct {
	core.LLM
	clock *stageClock
}

func (l timedLLM) Chat(ctx context.Context, req core.LLMRequest, emit func(core.LLMEvent) error) error {
	defer l.clock.start(stageModel)()
	return l.LLM.Chat(ctx, req, emit)
}

// chatStages splits one chat, sent at sent and answered at answered, into
// stages from the calls recorded meanwhile: retrieval until the model's
// call, then the model, then the turns' write; what is outside the first
// call and the write is HTTP and the rest. Calls after the write (work
// queued after done) are left out. ok is false if the chat's calls are not
// all there.
func chatStages(calls []timedCall, sent, answered time.Time) (st [nStages]time.Duration, ok bool) {
	slices.SortFunc(calls, func(a, b timedCall) int { return a.start.Compare(b.start) })
	model, write := -1, -1
	for i, c := range calls {
		if c.stage == stageModel && model < 0 {
			model = i
		}
		if c.stage == stageStore && model >= 0 && write < 0 {
			write = i
		}
	}
	if model < 0 || write < 0 || calls[0].start.Before(sent) || calls[write].end.After(answered) {
		return st, false
	}
	first, llm, put := calls[0].start, calls[model], calls[write]
	// Retrieval: each stage is the union of its calls' intervals (the
	// vector and keyword searches of one lookup run at once).
	retrievalEnd := first
	var spans []timedCall
	for _, c := range calls[:model] {
		spans = append(spans, c)
		retrievalEnd = later(retrievalEnd, c.end)
	}
	var covered time.Duration
	for s := stageEmbed; s < stageBetween; s++ {
		st[s] = union(spans, func(c timedCall) bool { return c.stage == s })
		covered += st[s]
	}
	st[stageBetween] = retrievalEnd.Sub(first) - covered
	st[stageAssemble] = llm.start.Sub(retrievalEnd)
	st[stageModel] = llm.end.Sub(llm.start)
	st[stageStore] = put.end.Sub(llm.end)
	st[stageTotal] = answered.Sub(sent)
	st[stageHTTP] = st[stageTotal] - put.end.Sub(first)
	return st, true
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// union is the time covered by the calls that keep selects.
func union(calls []timedCall, keep func(timedCall) bool) time.Duration {
	var total time.Duration
	var end time.Time
	for _, c := range calls { // by start
		if !keep(c) {
			continue
		}
		if c.start.After(end) {
			total += c.end.Sub(c.start)
			end = c.end
		} else if c.end.After(end) {
			total += c.end.Sub(end)
			end = c.end
		}
	}
	return total
}

// stageRun is the stages of n chats.
type stageRun struct {
	chats   [][nStages]time.Duration
	skipped int
}

// measureChatStages runs n chats of one conversation, one at a time, each after
// the background work of the one before is over, and splits each into
// stages.
func measureChatStages(b testing.TB, ada *adaProc, clock *stageClock, conv string, n int) stageRun {
	var run stageRun
	chat := func() ([nStages]time.Duration, bool) {
		ada.settle()
		clock.take()
		sent := time.Now()
		timeChat(b, ada.URL, map[string]any{"conversation_id": conv})
		answered := time.Now()
		ada.settle() // the extraction or summary the chat queued
		return chatStages(clock.take(), sent, answered)
	}
	for range 10 {
		chat() // warm-up
	}
	for range n {
		st, ok := chat()
		if !ok {
			run.skipped++
			continue
		}
		run.chats = append(run.chats, st)
	}
	return run
}

// p50 is the median of stage s, and mean its mean.
func (r stageRun) p50(s stage) time.Duration {
	d := make([]time.Duration, len(r.chats))
	for i, c := range r.chats {
		d[i] = c[s]
	}
	return pct(d, 50)
}

func (r stageRun) mean(s stage) time.Duration {
	var sum time.Duration
	for _, c := range r.chats {
		sum += c[s]
	}
	return sum / time.Duration(max(1, len(r.chats)))
}

// overheadP50 is the median of a chat's time without the model's.
func (r stageRun) overheadP50() time.Duration {
	d := make([]time.Duration, len(r.chats))
	for i, c := range r.chats {
		d[i] = c[stageTotal] - c[stageModel]
	}
	return pct(d, 50)
}

// printChatStages prints the stage table of runs, one column pair (p50, mean)
// per store size.
func printChatStages(sizes []int, runs []stageRun) {
	fmt.Printf("\nStages of a chat in a long conversation (POST /v1/chat, defaults, instant scripted model; one chat at a time;\n")
	fmt.Printf("medians do not add up, means do)\n")
	fmt.Printf("%-28s", "stage")
	for _, n := range sizes {
		fmt.Printf(" %21s", fmt.Sprintf("%d docs p50 / mean", n))
	}
	fmt.Println()
	for s := stage(0); s < nStages; s++ {
		fmt.Printf("%-28s", stageNames[s])
		for _, r := range runs {
			fmt.Printf(" %10s / %8s", ms(r.p50(s)), ms(r.mean(s)))
		}
		fmt.Println()
	}
	fmt.Printf("%-28s", "overhead (total − model)")
	for _, r := range runs {
		fmt.Printf(" %10s %10s", ms(r.overheadP50()), "")
	}
	fmt.Println()
	for i, r := range runs {
		if r.skipped > 0 {
			fmt.Printf("(%d docs: %d chats left out: their calls were not all seen)\n", sizes[i], r.skipped)
		}
	}
}
