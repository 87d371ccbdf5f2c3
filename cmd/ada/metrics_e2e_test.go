package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// scrape is one parsed /metrics answer.
type scrape map[string]*dto.MetricFamily

// scrapeMetrics reads /metrics as Prometheus does and parses it with
// Prometheus' own text parser.
func scrapeMetrics(t *testing.T, ada *adaProc, key string) scrape {
	t.Helper()
	st, body := ada.send(key, "GET", "/metrics", nil)
	if st != 200 {
		t.Fatalf("GET /metrics: %d %s", st, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse as the Prometheus text format: %v\n%s", err, body)
	}
	return families
}

// value is the value of the series of name whose labels include want: a
// counter's or gauge's value, a histogram's sample count; -1 if absent.
func (s scrape) value(name string, want map[string]string) float64 {
	f := s[name]
	if f == nil {
		return -1
	}
	total, found := 0.0, false
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return total
}

// TestMetricsMoveWithAChatAndAMemoryWrite is the acceptance test of
// /metrics: the real program is scraped with the key Prometheus would send,
// a chat (JSON and streamed) and a memory write each move their series, no
// label carries an id, and the key is required.
func TestMetricsMoveWithAChatAndAMemoryWrite(t *testing.T) {
	const key = "metrics-scrape-key"
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"API_KEY": key})
	llm.Default(llmtest.Reply{Tokens: []string{"Noted", "."}})

	for _, k := range []string{"", "wrong-key"} {
		if st, body := ada.send(k, "GET", "/metrics", nil); st != 401 {
			t.Fatalf("GET /metrics with key %q: %d %s, want 401", k, st, body)
		}
	}
	before := scrapeMetrics(t, ada, key)

	conv := core.NewConversationID()
	ids := []string{conv}
	llm.ScriptFormatted(factsReply(`{"text": "Sam keeps bees", "importance": 3, "replaces": []}`))
	var chat struct {
		RequestID string   `json:"request_id"`
		TurnIDs   []string `json:"turn_ids"`
	}
	st, body := ada.send(key, "POST", "/v1/chat", map[string]any{"prompt": "I keep bees", "conversation_id": conv})
	if st != 200 || json.Unmarshal(body, &chat) != nil {
		t.Fatalf("chat: %d %s", st, body)
	}
	ids = append(ids, chat.RequestID)
	ids = append(ids, chat.TurnIDs...)
	if st, body = ada.send(key, "POST", "/v1/chat/stream", map[string]any{"prompt": "And honey?", "conversation_id": conv, "auto_memory": false}); st != 200 || !strings.Contains(string(body), `"type":"done"`) {
		t.Fatalf("stream: %d %s", st, body)
	}
	var mem memoryRecord
	st, body = ada.send(key, "POST", "/v1/memory", map[string]any{"text": "Sam's hives are on the roof", "conversation_id": conv})
	if st != 201 || json.Unmarshal(body, &mem) != nil {
		t.Fatalf("memory write: %d %s", st, body)
	}
	ids = append(ids, mem.ID)
	// Routes with ids in their paths, and a path no route fits.
	for _, path := range []string{"/v1/memory/" + mem.ID, "/v1/conversations/" + conv, "/v1/no-such/" + conv} {
		ada.send(key, "GET", path, nil)
	}
	// The store's counts may be reused from a scrape a moment earlier
	// (core/metrics statsReuse): wait for them too.
	var after scrape
	waitFor(t, "the automatic memory's job and its count", func() bool {
		after = scrapeMetrics(t, ada, key)
		return after.value("ada_background_jobs_finished_total", map[string]string{"kind": "memory_extraction", "result": "done"}) >= 1 &&
			after.value("ada_store_documents", map[string]string{"type": "memory"})-max(before.value("ada_store_documents", map[string]string{"type": "memory"}), 0) >= 2
	})

	moved := func(name string, labels map[string]string, atLeast float64) {
		t.Helper()
		b, a := max(before.value(name, labels), 0), after.value(name, labels)
		if a-b < atLeast {
			t.Errorf("%s%v: %v -> %v, want a rise of at least %v", name, labels, b, a, atLeast)
		}
	}
	moved("ada_http_requests_total", map[string]string{"route": "/v1/chat", "method": "POST", "status_class": "2xx"}, 1)
	moved("ada_http_request_duration_seconds", map[string]string{"route": "/v1/chat/stream", "status_class": "2xx"}, 1)
	moved("ada_http_requests_total", map[string]string{"route": "/v1/memory", "method": "POST", "status_class": "2xx"}, 1)
	moved("ada_http_requests_total", map[string]string{"route": "/v1/memory/{id}", "method": "GET", "status_class": "2xx"}, 1)
	moved("ada_http_requests_total", map[string]string{"route": "/v1/conversations/{conversation_id}", "status_class": "2xx"}, 1)
	moved("ada_http_requests_total", map[string]string{"route": "unmatched", "status_class": "4xx"}, 1)
	if v := after.value("ada_http_requests_total", map[string]string{"route": "/metrics", "status_class": "4xx"}); v != 2 {
		t.Errorf("refused scrapes: %v, want 2", v)
	}
	moved("ada_chats_total", map[string]string{"source": "api", "result": "ok"}, 2)
	moved("ada_chat_time_to_first_token_seconds", map[string]string{"source": "api"}, 2)
	moved("ada_chat_duration_seconds", map[string]string{"source": "api", "result": "ok"}, 2)
	moved("ada_llm_requests_total", map[string]string{"backend": "ollama", "format": "text"}, 2)
	moved("ada_llm_requests_total", map[string]string{"backend": "ollama", "format": "json"}, 1)
	moved("ada_llm_request_duration_seconds", map[string]string{"backend": "ollama"}, 3)
	moved("ada_llm_tokens_total", map[string]string{"backend": "ollama", "direction": "in"}, 10)
	moved("ada_llm_tokens_total", map[string]string{"backend": "ollama", "direction": "out"}, 1)
	moved("ada_embedder_requests_total", map[string]string{"backend": "hash"}, 3)
	moved("ada_retrieval_duration_seconds", map[string]string{"method": "vector", "doc_type": "memory"}, 2)
	moved("ada_retrieval_duration_seconds", map[string]string{"method": "keyword"}, 1)
	moved("ada_store_write_duration_seconds", nil, 3)
	moved("ada_background_jobs_queued_total", map[string]string{"kind": "memory_extraction"}, 1)
	moved("ada_store_documents", map[string]string{"type": "turn"}, 4)
	moved("ada_store_documents", map[string]string{"type": "memory"}, 2) // the one written and the automatic one
	if v := after.value("ada_store_file_size_bytes", map[string]string{"file": "db"}); v <= 0 {
		t.Errorf("database size %v", v)
	}
	for name, want := range map[string]float64{"ada_chat_streams_active": 0, "ada_store_up": 1,
		"ada_background_jobs_pending": 0, "ada_llm_errors_total": 0} {
		if v := after.value(name, nil); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "ada_build_info"} {
		if after[name] == nil {
			t.Errorf("%s is missing", name)
		}
	}

	// No label value is, or holds, an id of this test.
	for name, f := range after {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				for _, id := range ids {
					if id != "" && strings.Contains(l.GetValue(), id) {
						t.Errorf("%s has the id %s in its label %s=%q", name, id, l.GetName(), l.GetValue())
					}
				}
			}
		}
	}
	checkDashboard(t, after)
}

// checkDashboard fails for every series the Grafana dashboard queries that
// the live /metrics lacks.
func checkDashboard(t *testing.T, live scrape) {
	t.Helper()
	data, err := os.ReadFile("../../deploy/grafana/ada.json")
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "expr" {
					exprs = append(exprs, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var dash any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("ada.json: %v", err)
	}
	walk(dash)
	if len(exprs) < 6 {
		t.Fatalf("the dashboard has %d queries", len(exprs))
	}
	checkSeries(t, live, "the dashboard", exprs)
}

// checkAlertRules fails for every series the example alert rules name that
// the live /metrics lacks: a rule on a series that does not exist never fires.
func checkAlertRules(t *testing.T, live scrape) {
	t.Helper()
	data, err := os.ReadFile("../../deploy/prometheus/ada-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatalf("ada-alerts.yml: %v", err)
	}
	var exprs, names []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs, names = append(exprs, r.Expr), append(names, r.Alert)
		}
	}
	for _, want := range []string{"AdaLLMFailing", "AdaBridgeStopped", "AdaRedactionAbandoned"} {
		if !slices.Contains(names, want) {
			t.Errorf("the alert rules lack %s: %v", want, names)
		}
	}
	checkSeries(t, live, "the alert rules", exprs)
}

// checkSeries fails for every Ada, Go or process series that one of exprs
// (PromQL) names and the live /metrics lacks.
func checkSeries(t *testing.T, live scrape, what string, exprs []string) {
	t.Helper()
	series := regexp.MustCompile(`\b(?:ada|go|process)_[a-z0-9_]+`)
	for _, e := range exprs {
		for _, name := range series.FindAllString(e, -1) {
			base := name
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				if b, ok := strings.CutSuffix(name, suffix); ok && live[b] != nil && live[b].GetType() == dto.MetricType_HISTOGRAM {
					base = b
				}
			}
			if live[base] == nil {
				t.Errorf("%s query %s (in %q), which /metrics does not have", what, name, e)
			}
		}
	}
}

// TestMetricsStateGauges: with the LLM and the homeserver down, ada_llm_up
// and ada_bot_up say so from the first scrape, /v1/readyz fails naming both
// while /v1/healthz stays 200, and every series the example alert rules
// name is in the scrape.
func TestMetricsStateGauges(t *testing.T) {
	ada := startAda(t, "up", testEnv(t, map[string]string{
		"LLM_BACKEND": "ollama", "LLM_BASE_URL": llmtest.ClosedURL(t), "LLM_MODEL": llmtest.ModelName,
		"MATRIX_HOMESERVER": llmtest.ClosedURL(t), "MATRIX_USER_ID": "@ada:example.org", "MATRIX_ACCESS_TOKEN": "syt_secret_token",
	}))
	live := scrapeMetrics(t, ada, "")
	for name, labels := range map[string]map[string]string{"ada_llm_up": {"backend": "ollama"}, "ada_bot_up": nil} {
		if v := live.value(name, labels); v != 0 {
			t.Errorf("%s%v = %v, want 0", name, labels, v)
		}
	}
	if v := live.value("ada_bot_redaction_cascades_total", map[string]string{"result": "abandoned"}); v != 0 {
		t.Errorf("abandoned redactions = %v, want the series at 0", v)
	}
	checkAlertRules(t, live)
	var ready struct {
		Ready   bool
		Failing map[string]string
	}
	if st := ada.call("GET", "/v1/readyz", nil, &ready); st != 503 || ready.Ready ||
		!strings.Contains(ready.Failing["llm"], "connection refused") || !strings.Contains(ready.Failing["matrix"], "cannot reach the homeserver") {
		t.Errorf("readyz: %d %+v, want 503 naming the LLM and the bridge", st, ready)
	}
	if st := ada.call("GET", "/v1/healthz", nil, nil); st != 200 {
		t.Errorf("healthz: %d, want 200: the process is alive", st)
	}
}

// TestMetricsOff: METRICS_ENABLED=false answers /metrics with 404.
func TestMetricsOff(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"METRICS_ENABLED": "false"}))
	if st, body := ada.send("", "GET", "/metrics", nil); st != 404 || !strings.Contains(string(body), "METRICS_ENABLED") {
		t.Fatalf("%d %s", st, body)
	}
}

// TestMetricsCountABotAnswer: in `ada up` with the bridge in the same
// process, an answer in a Matrix room moves the bot's chat series, and no
// label carries the room's, the member's or the message's id.
func TestMetricsCountABotAnswer(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	const key = "metrics-bot-key-16"
	env := bridgeEnv(t, hs, acct, llm, map[string]string{"API_KEY": key})
	ada := startAda(t, "up", env)
	alice := bottest.NewMember(t, hs, "alice", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "metrics", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	before := scrapeMetrics(t, ada, key)

	llm.Default(llmtest.Reply{Tokens: []string{"Hello from ", "the room"}})
	asked := alice.Say(room, "Ada, are you counted?")
	alice.Wait("✅", bottest.ReactionTo(asked, "✅"))
	after := scrapeMetrics(t, ada, key)
	for name, labels := range map[string]map[string]string{"ada_llm_up": {"backend": "ollama"}, "ada_bot_up": nil} {
		if v := after.value(name, labels); v != 1 {
			t.Errorf("%s%v = %v, want 1", name, labels, v)
		}
	}
	checkAlertRules(t, after)

	bot := map[string]string{"source": "bot", "result": "ok"}
	if b, a := max(before.value("ada_chats_total", bot), 0), after.value("ada_chats_total", bot); a-b != 1 {
		t.Errorf("ada_chats_total%v: %v -> %v, want one more", bot, b, a)
	}
	if a := after.value("ada_chat_time_to_first_token_seconds", map[string]string{"source": "bot"}); a < 1 {
		t.Errorf("bot time to first token: %v samples", a)
	}
	// The bridge's own series: the message handled, the answer posted, the
	// time to its 🧠.
	for _, c := range []struct {
		name   string
		labels map[string]string
	}{
		{"ada_bot_events_total", map[string]string{"kind": "message"}},
		{"ada_bot_answers_total", map[string]string{"result": "ok"}},
		{"ada_bot_reaction_seconds", nil},
	} {
		if b, a := max(before.value(c.name, c.labels), 0), after.value(c.name, c.labels); a-b < 1 {
			t.Errorf("%s%v: %v -> %v, want it moved by the answer", c.name, c.labels, b, a)
		}
	}
	ids := []string{room.String(), acct.UserID.String(), alice.Client.UserID.String(), asked.String(), "alice"}
	for name, f := range after {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				for _, id := range ids {
					if strings.Contains(l.GetValue(), id) {
						t.Errorf("%s has the id %s in its label %s=%q", name, id, l.GetName(), l.GetValue())
					}
				}
			}
		}
	}
}
