package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/ocr/ocrtest"
)

// fakeSearXNG answers /search like SearXNG's JSON API, or with a scripted
// failure.
func fakeSearXNG(t *testing.T, status int, delay time.Duration) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "bad request", 400)
			return
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if status != 200 {
			http.Error(w, "slow down", status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query": %q, "results": [
			{"title": "Berlin weather today", "url": "https://weather.example/berlin", "content": "Sunny, 21 degrees [live]"},
			{"title": "Forecast", "url": "https://forecast.example", "content": "Rain tomorrow"}]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// markerReply splits a web_search marker over many tokens, with "]" inside
// the JSON arguments.
func markerReply() llmtest.Reply {
	return llmtest.Reply{Tokens: []string{"Let me check. SPEC", "IALIST_RE", "QUEST[web_se", `arch:{"query": "weather [Berlin]`, `", "num_results": 2}`, "] and more"}}
}

func TestSpecialistMarkerPausesRunsInjectsAndResumes(t *testing.T) {
	searx, calls := fakeSearXNG(t, 200, 0)
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"WEBSEARCH_URL": searx.URL})
	llm.Script(markerReply(), llmtest.Reply{Tokens: []string{" It is sunny", " in Berlin."}})
	evs := ada.openStream(map[string]any{"prompt": "weather in Berlin?"}).all()
	if got := eventTypes(evs); got != "token,specialist_result,token,done" {
		t.Fatalf("events %s", got)
	}
	text := joinContent(evs, "token")
	if text != "Let me check.  It is sunny in Berlin." {
		t.Fatalf("client text %q", text)
	}
	var res struct {
		Specialist string `json:"specialist"`
		OK         bool   `json:"ok"`
		Content    string `json:"content"`
	}
	for _, e := range evs {
		if e.Type == "specialist_result" {
			json.Unmarshal(e.Raw, &res)
		}
	}
	if res.Specialist != "web_search" || !res.OK || !strings.Contains(res.Content, "weather [Berlin]") || !strings.Contains(res.Content, "URL: https://weather.example/berlin") {
		t.Fatalf("specialist_result %+v", res)
	}
	if calls.Load() != 1 {
		t.Fatalf("search called %d times", calls.Load())
	}
	reqs := llm.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("LLM requests %d, want 2", len(reqs))
	}
	second := reqs[1].Messages
	if last := second[len(second)-1].Content; !strings.Contains(last, "Sunny, 21 degrees") {
		t.Fatalf("the second LLM request lacks the result: %q", last)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "web_search") {
		t.Fatal("web_search was not offered to the model")
	}
	for _, d := range documentsIn(t, env, core.Filter{Type: core.DocTurn}) {
		if strings.Contains(d.Text, "SPECIALIST") || strings.Contains(d.Text, "and more") {
			t.Fatalf("marker text reached the stored turn: %q", d.Text)
		}
	}
}

func TestSpecialistLoopStopsAtTheLimit(t *testing.T) {
	searx, calls := fakeSearXNG(t, 200, 0)
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"WEBSEARCH_URL": searx.URL, "SPECIALIST_MAX_TURNS": "2"})
	forever := llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[web_search:{"query": "again"}]`}}
	llm.Default(forever)
	var r chatResponse
	start := time.Now()
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "loop"}, &r); st != 200 {
		t.Fatalf("status %d", st)
	}
	if time.Since(start) > 20*time.Second || strings.TrimSpace(r.Response) == "" || strings.Contains(r.Response, "SPECIALIST") {
		t.Fatalf("response %q after %v", r.Response, time.Since(start))
	}
	if calls.Load() != 2 || len(llm.ChatRequests()) != 3 {
		t.Fatalf("searches %d, LLM calls %d; want 2 and 3", calls.Load(), len(llm.ChatRequests()))
	}
}

func TestWebSearchFailuresGoBackToTheModel(t *testing.T) {
	cases := []struct {
		name   string
		status int
		delay  time.Duration
		want   string
	}{
		{"rate limited", 429, 0, "429"},
		{"timeout", 200, 5 * time.Second, "timed out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			searx, _ := fakeSearXNG(t, tc.status, tc.delay)
			ada, llm, _ := startChatAda(t, "ollama", map[string]string{"WEBSEARCH_URL": searx.URL, "SPECIALIST_TIMEOUT_SECONDS": "1"})
			llm.Script(markerReply(), llmtest.Reply{Tokens: []string{"The search failed, sorry."}})
			evs := ada.openStream(map[string]any{"prompt": "weather?"}).all()
			var res struct {
				OK      bool   `json:"ok"`
				Content string `json:"content"`
			}
			for _, e := range evs {
				if e.Type == "specialist_result" {
					json.Unmarshal(e.Raw, &res)
				}
			}
			if res.OK || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("specialist_result %+v, want an error mentioning %q", res, tc.want)
			}
			second := llm.ChatRequests()[1].Messages
			if !strings.Contains(second[len(second)-1].Content, tc.want) {
				t.Fatal("the error did not reach the model")
			}
			if evs[len(evs)-1].Type != "done" {
				t.Fatal("the chat must still complete")
			}
		})
	}
}

func TestWebSearchIsOffOnlyWithoutURL(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	var list struct {
		Specialists []core.SpecialistInfo `json:"specialists"`
		Count       int                   `json:"count"`
	}
	ada.call("GET", "/v1/specialists", nil, &list)
	found := false
	for _, s := range list.Specialists {
		if s.Name == "web_search" {
			found = true
			if s.Enabled || s.Priority != core.PriorityHigh || len(s.InputSchema) == 0 {
				t.Fatalf("web_search without WEBSEARCH_URL: %+v", s)
			}
		}
	}
	if !found || list.Count != len(list.Specialists) || list.Count < 3 {
		t.Fatalf("specialists %+v", list)
	}
	llm.Script(markerReply(), llmtest.Reply{Tokens: []string{"no search"}})
	var r chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "weather?"}, &r)
	if strings.Contains(llm.ChatRequests()[0].Messages[0].Content, "web_search") {
		t.Fatal("a disabled web_search was offered to the model")
	}
	second := llm.ChatRequests()[1].Messages
	if !strings.Contains(second[len(second)-1].Content, "no available specialist") {
		t.Fatalf("an unknown specialist must come back as an error: %q", second[len(second)-1].Content)
	}
}

func TestSpecialistFAQsAreNotDuplicatedByRestarts(t *testing.T) {
	searx, _ := fakeSearXNG(t, 200, 0)
	env := testEnv(t, map[string]string{"WEBSEARCH_URL": searx.URL})
	for i := 0; i < 3; i++ {
		startAda(t, "serve", env).stop()
	}
	faqs := documentsIn(t, env, core.Filter{Type: core.DocFAQ})
	names := map[string]int{}
	for _, d := range faqs {
		names[d.Meta.SpecialistName]++
	}
	if names["web_search"] != 1 {
		t.Fatalf("web_search FAQ entries after 3 starts: %d (all: %v)", names["web_search"], names)
	}
}

func uploadImage(t *testing.T, ada *adaProc, field string, data []byte) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile(field, "image.png")
	fw.Write(data)
	mw.Close()
	resp, err := http.Post(ada.URL+"/v1/ocr/extract", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestOCRExtractReadsRenderedText(t *testing.T) {
	ocrtest.RequireTesseract(t)
	ada := startAda(t, "serve", testEnv(t, map[string]string{"OCR_MAX_BYTES": "200000"}))
	png := ocrtest.Encode(t, ocrtest.Render(t, "Meeting moved to Thursday", "Room 42"), "png")
	st, out := uploadImage(t, ada, "file", png)
	if st != 200 || !strings.Contains(fmt.Sprint(out["text"]), "Thursday") || out["image_format"] != "png" {
		t.Fatalf("%d %v", st, out)
	}
	if st, out := uploadImage(t, ada, "file", []byte("this is not an image at all")); st != 400 {
		t.Fatalf("non-image: %d %v", st, out)
	}
	if st, out := uploadImage(t, ada, "other", png); st != 400 || !strings.Contains(fmt.Sprint(out["detail"]), "file") {
		t.Fatalf("missing field: %d %v", st, out)
	}
	big := append(png, make([]byte, 300000)...)
	if st, out := uploadImage(t, ada, "file", big); st != 413 {
		t.Fatalf("oversized: %d %v", st, out)
	}
}

func TestOCRContextReachesThePrompt(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"It says hello."}})
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "what does my picture say?",
		"ocr_context": map[string]any{"text": "HELLO FROM THE WHITEBOARD", "char_count": 25, "line_count": 1}}, nil)
	if !strings.Contains(llm.ChatRequests()[0].Messages[0].Content, "HELLO FROM THE WHITEBOARD") {
		t.Fatal("ocr_context is missing from the prompt")
	}
}
