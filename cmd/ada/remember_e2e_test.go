package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// The tests of "Ada remembers": recall of older context, contiguous
// summaries, automatic memories and the relevance floor, against the real
// program over HTTP with the scripted model as the only fake.

// isSummaryRequest tells the background summary requests from chat answers.
func isSummaryRequest(r llmtest.Request) bool {
	return len(r.Messages) == 2 && strings.HasPrefix(r.Messages[1].Content, "Summarise this part of the conversation")
}

var codewordFact = regexp.MustCompile(`codeword c\d+ is v\d+x`)

// perfectSummariser answers summary requests with every codeword fact of
// their transcript, as a model that summarises perfectly would.
func perfectSummariser(r llmtest.Request) (llmtest.Reply, bool) {
	if !isSummaryRequest(r) {
		return llmtest.Reply{}, false
	}
	facts := codewordFact.FindAllString(r.Messages[1].Content, -1)
	return llmtest.Reply{Tokens: []string{"The user said: " + strings.Join(facts, "; ") + "."}}, true
}

// waitFor polls cond every 20 ms for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func debugPrompt(t *testing.T, ada *adaProc, prompt, convID string) string {
	t.Helper()
	var dbg struct {
		FinalPrompt string `json:"final_prompt"`
	}
	q := url.Values{"prompt": {prompt}, "conversation_id": {convID}}
	if st := ada.call("GET", "/v1/debug/prompt?"+q.Encode(), nil, &dbg); st != 200 {
		t.Fatalf("debug prompt: %d", st)
	}
	return dbg.FinalPrompt
}

// TestEveryFactOfALongConversationReachesThePrompt is the report as
// a test: 24 exchanges, each telling one fact; then each fact is asked for
// by its own question and must be in the prompt the model would get.
func TestEveryFactOfALongConversationReachesThePrompt(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"RAG_DEBUG": "true", "RAG_AUTO_MEMORY": "false"})
	llm.Handle(perfectSummariser)
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	conv := core.NewConversationID()
	for i := 1; i <= 24; i++ {
		body := map[string]any{"prompt": fmt.Sprintf("Remember this: codeword c%d is v%dx", i, i), "conversation_id": conv}
		if st := ada.call("POST", "/v1/chat", body, nil); st != 200 {
			t.Fatalf("exchange %d: %d", i, st)
		}
	}
	waitFor(t, "three summaries", func() bool {
		return len(documentsIn(t, env, core.Filter{Type: core.DocSummary, ConversationID: conv})) == 3
	})
	for i := 1; i <= 24; i++ {
		fact := fmt.Sprintf("codeword c%d is v%dx", i, i)
		got := debugPrompt(t, ada, fmt.Sprintf("What is codeword c%d?", i), conv)
		if !regexp.MustCompile(regexp.QuoteMeta(fact) + `\b`).MatchString(got) {
			t.Errorf("the prompt for fact %d does not hold %q:\n%s", i, fact, got)
		}
	}
	// The recalled context is marked and dated; the recent window too.
	var r struct {
		UsedContext struct {
			Turns []struct {
				Text, Reason, Timestamp string
			} `json:"turns"`
		} `json:"used_context"`
	}
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "What is codeword c3?", "conversation_id": conv, "store": false}, &r)
	var reasons []string
	recalled := false
	for _, tu := range r.UsedContext.Turns {
		reasons = append(reasons, tu.Reason)
		recalled = recalled || (tu.Reason == core.ReasonRecalled && strings.Contains(tu.Text, "codeword c3 is v3x") && tu.Timestamp != "")
	}
	if !recalled || !slices.Contains(reasons, core.ReasonRecent) {
		t.Fatalf("used_context.turns reasons %v; the c3 turn recalled: %v", reasons, recalled)
	}
	// recall_k 0 turns recall off: the old fact is then only in a summary.
	q := url.Values{"prompt": {"What is codeword c3?"}, "conversation_id": {conv}, "recall_k": {"0"}}
	var dbg struct {
		FinalPrompt string `json:"final_prompt"`
	}
	ada.call("GET", "/v1/debug/prompt?"+q.Encode(), nil, &dbg)
	if strings.Contains(dbg.FinalPrompt, "## Recalled from earlier") {
		t.Fatalf("recall_k=0 still recalled:\n%s", dbg.FinalPrompt)
	}
}

// TestSummariesAreContiguous: the summaries of a 40-exchange conversation
// cover every turn up to the last summary once, even after a summary fails.
func TestSummariesAreContiguous(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"RAG_AUTO_MEMORY": "false"})
	summaries := 0
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if !isSummaryRequest(r) {
			return llmtest.Reply{}, false
		}
		summaries++ // the handler runs for one request at a time per conversation
		if summaries == 2 {
			return llmtest.Reply{Status: 500, Error: "model overloaded"}, true
		}
		return llmtest.Reply{Tokens: []string{fmt.Sprintf("Summary number %d.", summaries)}}, true
	})
	conv := core.NewConversationID()
	for i := range 40 {
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": fmt.Sprintf("message %d", i), "conversation_id": conv}, nil); st != 200 {
			t.Fatalf("exchange %d: %d", i, st)
		}
	}
	var sums []core.Document
	waitFor(t, "four summaries (five, one failed)", func() bool {
		sums = documentsIn(t, env, core.Filter{Type: core.DocSummary, ConversationID: conv})
		return len(sums) == 4
	})
	slices.SortFunc(sums, func(a, b core.Document) int { return *a.Meta.SummaryIndex - *b.Meta.SummaryIndex })
	var ranges []string
	for _, s := range sums {
		ranges = append(ranges, s.Meta.TurnRange)
	}
	// Summaries at exchanges 8, 16 (failed), 24, 32 and 40: the one after the
	// failure catches up from where the previous summary ended.
	if want := "0-15 16-47 48-63 64-79"; strings.Join(ranges, " ") != want {
		t.Fatalf("turn ranges %q, want %q", strings.Join(ranges, " "), want)
	}
}

func listMemories(t *testing.T, ada *adaProc, query string) []memoryRecord {
	t.Helper()
	var res struct {
		Items []memoryRecord `json:"items"`
	}
	if st := ada.call("GET", "/v1/memory?"+query, nil, &res); st != 200 {
		t.Fatalf("list memories: %d", st)
	}
	return res.Items
}

func factsReply(facts ...string) llmtest.Reply {
	return llmtest.Reply{Tokens: []string{`{"facts": [` + strings.Join(facts, ",") + `]}`}}
}

// TestAutomaticMemories: facts come from the exchange into the request's
// scope with their sources; the same fact refreshes; a correction retires
// the old memory, and its history says so.
func TestAutomaticMemories(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	conv := core.NewConversationID()
	chat := func(prompt string) {
		t.Helper()
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": prompt, "conversation_id": conv, "entity": "sam"}, &r); st != 200 || r.Response != "Noted." {
			t.Fatalf("chat %q: %d %q", prompt, st, r.Response)
		}
	}
	mems := func() []memoryRecord { return listMemories(t, ada, "entity=sam&tag=auto") }

	llm.ScriptFormatted(factsReply(`{"text": "Sam lives in Paris", "importance": 4, "replaces": []}`))
	chat("I live in Paris")
	waitFor(t, "the first automatic memory", func() bool { return len(mems()) == 1 })
	paris := mems()[0]
	turns := documentsIn(t, env, core.Filter{Type: core.DocTurn, ConversationID: conv})
	if paris.Text != "Sam lives in Paris" || paris.Meta.Scope != "entity:sam" || paris.Meta.Importance != 4 ||
		len(paris.Meta.SourceIDs) != 2 || !slices.Contains(paris.Meta.SourceIDs, turns[0].ID) || *paris.Meta.ConversationID != conv {
		t.Fatalf("automatic memory %+v (turns %s, %s)", paris, turns[0].ID, turns[1].ID)
	}
	if global := listMemories(t, ada, "tag=auto"); len(global) != 0 {
		t.Fatalf("an entity's memory leaked into the global scope: %+v", global)
	}

	// The same fact again refreshes it.
	llm.ScriptFormatted(factsReply(`{"text": "Sam lives in Paris.", "importance": 5, "replaces": []}`))
	chat("Yes, I really live in Paris")
	var hist struct {
		Items []struct{ Event, Reason string } `json:"items"`
	}
	waitFor(t, "the refresh", func() bool {
		ada.call("GET", "/v1/memory/"+paris.ID+"/history", nil, &hist)
		return len(hist.Items) == 2
	})
	if got := mems(); len(got) != 1 || got[0].ID != paris.ID || got[0].Meta.Importance != 5 || len(got[0].Meta.SourceIDs) != 4 {
		t.Fatalf("after the same fact: %+v", got)
	}
	if hist.Items[1].Event != core.HistoryRefresh {
		t.Fatalf("history %+v", hist.Items)
	}

	// A correction retires the old memory; the model names it by the alias it was shown.
	llm.ScriptFormatted(factsReply(`{"text": "Sam lives in Lyon", "importance": 4, "replaces": ["m1"]}`))
	chat("I moved to Lyon")
	waitFor(t, "the correction", func() bool {
		got := mems()
		return len(got) == 1 && got[0].Text == "Sam lives in Lyon"
	})
	extraction := llm.FormattedRequests()[2]
	if !strings.Contains(extraction.Messages[1].Content, "[m1] Sam lives in Paris") {
		t.Fatalf("the model was not shown the existing memory:\n%s", extraction.Messages[1].Content)
	}
	var detail struct{ Detail string }
	if st := ada.call("GET", "/v1/memory/"+paris.ID, nil, &detail); st != 404 || !strings.Contains(detail.Detail, "retired") {
		t.Fatalf("GET retired memory: %d %q", st, detail.Detail)
	}
	ada.call("GET", "/v1/memory/"+paris.ID+"/history", nil, &hist)
	if n := len(hist.Items); n != 3 || hist.Items[2].Event != core.HistoryRetire || hist.Items[2].Reason != core.RetireReason(mems()[0].ID) {
		t.Fatalf("history after the correction: %+v", hist.Items)
	}
	if found := listMemories(t, ada, "entity=sam&search="+url.QueryEscape("where does Sam live Paris")); len(found) != 1 || found[0].Text != "Sam lives in Lyon" {
		t.Fatalf("search still finds the retired memory: %+v", found)
	}
}

// TestMalformedExtractionStoresNothingWrong: whatever the model answers,
// the chat's answer is unaffected and only well-formed facts are stored.
func TestMalformedExtractionStoresNothingWrong(t *testing.T) {
	ada, llm, _ := startChatAda(t, "openai", nil)
	llm.Default(llmtest.Reply{Tokens: []string{"Fine."}})
	conv := core.NewConversationID()
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's bike is red", "entity": "sam"}, nil)
	answers := []llmtest.Reply{
		{Tokens: []string{"Sure! Here are the facts: none really."}},
		{Tokens: []string{`{"facts": "Sam likes jazz"}`}},
		{Tokens: []string{`{"facts": [{"text": "Sam is 9 feet tall", "importance": 9, "replaces": []}]}`}},
		{Tokens: []string{`{"facts": [{"text": "   ", "importance": 3, "replaces": []}]}`}},
		{Tokens: []string{"```json\n", `{"facts": [{"text": "Sam plays the oboe", "importance": 2, "replaces": ["m7", "doc-00000000-0000-0000-0000-000000000000"]}]}`, "\n```\nDone."}},
		{Status: 500, Error: "boom"},
		{Tokens: []string{`{"facts": [{"text": "Sam's sister is Kim", "importance": 3, "replaces": []}]}`}},
	}
	llm.ScriptFormatted(answers...)
	for i := range answers {
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": fmt.Sprintf("message %d", i), "conversation_id": conv, "entity": "sam"}, &r); st != 200 || r.Response != "Fine." {
			t.Fatalf("chat %d: %d %q", i, st, r.Response)
		}
	}
	// Extractions of one conversation run in order: once the last one is
	// stored, every earlier one is done.
	waitFor(t, "the last extraction", func() bool {
		return slices.ContainsFunc(listMemories(t, ada, "entity=sam&tag=auto"), func(m memoryRecord) bool { return m.Text == "Sam's sister is Kim" })
	})
	var texts []string
	for _, m := range listMemories(t, ada, "entity=sam") {
		texts = append(texts, m.Text)
	}
	slices.Sort(texts)
	if want := []string{"Sam plays the oboe", "Sam's bike is red", "Sam's sister is Kim"}; !slices.Equal(texts, want) {
		t.Fatalf("memories %q, want %q", texts, want)
	}
	if reqs := llm.FormattedRequests(); len(reqs) != len(answers) || reqs[0].Format == nil {
		t.Fatalf("%d extraction requests, want %d with a schema", len(reqs), len(answers))
	}
}

// TestNoExtractionWhenStorageOrAutoMemoryIsOff counts the model's
// structured-output requests: store false, auto_memory false and
// RAG_ENABLED=false make none.
func TestNoExtractionWhenStorageOrAutoMemoryIsOff(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	conv := core.NewConversationID()
	for _, body := range []map[string]any{
		{"prompt": "I live in Paris", "conversation_id": conv, "store": false},
		{"prompt": "I live in Paris", "conversation_id": conv, "auto_memory": false},
		{"prompt": "I live in Rome", "conversation_id": conv},
	} {
		if st := ada.call("POST", "/v1/chat", body, nil); st != 200 {
			t.Fatalf("chat %v: %d", body, st)
		}
	}
	ada.settle()
	if reqs := llm.FormattedRequests(); len(reqs) != 1 || !strings.Contains(reqs[0].Messages[1].Content, "I live in Rome") {
		t.Fatalf("extraction requests: %d, want only the one for the stored exchange", len(reqs))
	}

	off, llmOff, _ := startChatAda(t, "ollama", map[string]string{"RAG_ENABLED": "false"})
	off.call("POST", "/v1/chat", map[string]any{"prompt": "I live in Paris"}, nil)
	off.settle()
	if n := len(llmOff.FormattedRequests()); n != 0 {
		t.Fatalf("RAG_ENABLED=false made %d extraction requests", n)
	}
}

// TestExtractionSeesOnlyTheExchange: with Ollama the extraction asks for a
// format schema, and a fact that was only in the recalled context (not said
// in the exchange) never reaches the extraction.
func TestExtractionSeesOnlyTheExchange(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"RAG_TURN_TOP_K": "2"})
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	conv := core.NewConversationID()
	for _, p := range []string{"My locker code is zebra", "I like green tea", "What is my locker code?"} {
		ada.call("POST", "/v1/chat", map[string]any{"prompt": p, "conversation_id": conv}, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	llm.WaitRequests(ctx, 6)
	chats := llm.ChatRequests()
	if sys := chats[2].Messages[0].Content; !strings.Contains(sys, "My locker code is zebra") {
		t.Fatalf("the old turn was not recalled for the question:\n%s", sys)
	}
	waitFor(t, "three extraction requests", func() bool { return len(llm.FormattedRequests()) == 3 })
	last := llm.FormattedRequests()[2]
	var schema map[string]any
	if json.Unmarshal(last.Format, &schema) != nil || schema["type"] != "object" {
		t.Fatalf("extraction format %s", last.Format)
	}
	for _, m := range last.Messages {
		if strings.Contains(m.Content, "zebra") {
			t.Fatalf("the extraction saw the recalled context:\n%s", m.Content)
		}
	}
}

// TestRelevanceFloor: an important memory unrelated to the prompt stays out
// of the chat's context; a related unimportant one gets in.
func TestRelevanceFloor(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"RAG_AUTO_MEMORY": "false"})
	llm.Default(llmtest.Reply{Tokens: []string{"Jasmine."}})
	ada.call("POST", "/v1/memory", map[string]any{"text": "The garage door code is 4512", "importance": 5}, nil)
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's favourite tea is jasmine", "importance": 1}, nil)
	var r struct {
		UsedContext struct {
			Memories []struct{ Text string } `json:"memories"`
		} `json:"used_context"`
	}
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "Which tea should I brew for Sam?"}, &r)
	if len(r.UsedContext.Memories) != 1 || r.UsedContext.Memories[0].Text != "Sam's favourite tea is jasmine" {
		t.Fatalf("memories in the context: %+v", r.UsedContext.Memories)
	}
	if sys := llm.ChatRequests()[0].Messages[0].Content; strings.Contains(sys, "4512") {
		t.Fatalf("the unrelated memory reached the prompt:\n%s", sys)
	}
}

// TestExtractionNeverDelaysDone: with the extraction's reply held back, the
// stream still ends with done at once; the memory arrives when the model
// answers.
func TestExtractionNeverDelaysDone(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	reply := factsReply(`{"text": "Sam's locker is number 12", "importance": 3, "replaces": []}`)
	reply.Hold, reply.HoldAfter = release, 0
	llm.ScriptFormatted(reply)
	start := time.Now()
	evs := ada.openStream(map[string]any{"prompt": "My locker is number 12"}).all()
	if eventTypes(evs) != "token,done" || time.Since(start) > 5*time.Second {
		t.Fatalf("done was delayed or missing: %s after %v", eventTypes(evs), time.Since(start))
	}
	waitFor(t, "the held extraction request", func() bool { return len(llm.FormattedRequests()) == 1 })
	if n := len(listMemories(t, ada, "tag=auto")); n != 0 {
		t.Fatalf("%d memories before the model answered", n)
	}
	close(release)
	waitFor(t, "the memory", func() bool { return len(listMemories(t, ada, "tag=auto")) == 1 })
}
