package metrics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/core"
)

// value sums the series of name whose labels include want (a histogram
// counts its samples); -1 if there is none.
func value(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total, found := 0.0, false
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			found = true
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return total
}

// TestLabelsComeFromClosedSets: whatever a caller passes, a label value is
// one of a fixed few, so no id and no client's text becomes a series.
func TestLabelsComeFromClosedSets(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg, "test")
	m.Request("/v1/memory/{id}", "BREW", 999, time.Millisecond)
	m.BotEvent("!room:example.org")
	m.BotEvent("message")
	m.BotAnswer(nil)
	m.BotAnswer(errors.New("send failed"))
	m.BotReaction(300 * time.Millisecond)
	m.BotDecryptionFailure()
	m.BotRedactionCascade(nil)
	m.BotRedactionAbandoned()
	jobs{m}.JobQueued("memory extraction")
	jobs{m}.JobDone("memory extraction", nil)
	jobs{m}.JobQueued("conv-1234 job")
	jobs{m}.JobDone("conv-1234 job", core.ErrJobDropped)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ada_http_requests_total", map[string]string{"method": "other", "status_class": "other", "route": "/v1/memory/{id}"}, 1},
		{"ada_bot_events_total", map[string]string{"kind": "other"}, 1},
		{"ada_bot_events_total", map[string]string{"kind": "message"}, 1},
		{"ada_bot_answers_total", map[string]string{"result": "ok"}, 1},
		{"ada_bot_answers_total", map[string]string{"result": "failed"}, 1},
		{"ada_bot_reaction_seconds", nil, 1},
		{"ada_bot_decryption_failures_total", nil, 1},
		{"ada_bot_redaction_cascades_total", map[string]string{"result": "done"}, 1},
		{"ada_bot_redaction_cascades_total", map[string]string{"result": "abandoned"}, 1},
		{"ada_background_jobs_finished_total", map[string]string{"kind": "memory_extraction", "result": "done"}, 1},
		{"ada_background_jobs_finished_total", map[string]string{"kind": "other", "result": "dropped"}, 1},
		{"ada_background_jobs_pending", nil, 0},
		{"ada_build_info", map[string]string{"version": "test"}, 1},
	} {
		if got := value(t, reg, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// fakeLLM streams a thinking piece and two tokens, then the usage when it
// has one, or fails.
type fakeLLM struct {
	err   error
	usage *core.Usage
}

func (f fakeLLM) Chat(_ context.Context, _ core.LLMRequest, emit func(core.LLMEvent) error) error {
	events := []core.LLMEvent{{Kind: core.LLMThinking, Text: "hmm"}, {Text: "Hello"}, {Text: " there"}}
	if f.usage != nil {
		events = append(events, core.LLMEvent{Kind: core.LLMUsage, Usage: *f.usage})
	}
	for _, ev := range events {
		if err := emit(ev); err != nil {
			return err
		}
	}
	return f.err
}
func (fakeLLM) Backend() string            { return "openai" }
func (fakeLLM) Model() string              { return "m" }
func (fakeLLM) Ping(context.Context) error { return nil }

// TestDecoratorsCountAndPassThrough: the LLM decorator passes every event
// and the error on unchanged while counting calls, errors by kind and
// estimated tokens; the chat decorator times the first token, not a
// thinking piece.
func TestDecoratorsCountAndPassThrough(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg, "test")
	d := core.Deps{LLM: fakeLLM{err: core.Errorf(core.KindUpstream, "down")}}
	m.Wrap(&d)
	var got []string
	err := d.LLM.Chat(context.Background(), core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "12345678"}}}, func(ev core.LLMEvent) error {
		got = append(got, ev.Text)
		return nil
	})
	if core.KindOf(err) != core.KindUpstream || len(got) != 3 {
		t.Fatalf("events %q, error %v", got, err)
	}
	if v := value(t, reg, "ada_llm_errors_total", map[string]string{"backend": "openai", "kind": "upstream"}); v != 1 {
		t.Errorf("errors %v", v)
	}
	if v := value(t, reg, "ada_llm_tokens_total", map[string]string{"direction": "in"}); v != 2 {
		t.Errorf("tokens in %v, want 2 (8 characters)", v)
	}
	var ttftAtFirstToken bool
	chat := m.Chat("api", func(ctx context.Context, _ core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
		_ = emit(core.Event{Type: core.EventThinking, Content: "hmm"})
		before := value(t, reg, "ada_chat_time_to_first_token_seconds", nil)
		_ = emit(core.Event{Type: core.EventToken, Content: "Hi"})
		ttftAtFirstToken = before <= 0 && value(t, reg, "ada_chat_time_to_first_token_seconds", nil) == 1
		_ = emit(core.Event{Type: core.EventToken, Content: "!"})
		return core.ChatResult{}, nil
	})
	if _, err := chat(context.Background(), core.ChatRequest{}, func(core.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !ttftAtFirstToken {
		t.Error("time to first token was not taken at the first token")
	}
	if v := value(t, reg, "ada_chats_total", map[string]string{"source": "api", "result": "ok"}); v != 1 {
		t.Errorf("chats %v", v)
	}
}

// TestTokensAreTheBackendsCounts: a backend's reported usage is counted as
// it is; the estimate is only for a backend that reports none.
func TestTokensAreTheBackendsCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg, "test")
	d := core.Deps{LLM: fakeLLM{usage: &core.Usage{PromptTokens: 70, CompletionTokens: 30}}}
	m.Wrap(&d)
	if err := d.LLM.Chat(context.Background(), core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "12345678"}}}, func(core.LLMEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]float64{"in": 70, "out": 30} {
		if v := value(t, reg, "ada_llm_tokens_total", map[string]string{"direction": dir}); v != want {
			t.Errorf("tokens %s = %v, want the backend's %v", dir, v, want)
		}
	}
}
