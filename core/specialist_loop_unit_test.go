package core

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/marker"
)

// TestSpecialistLoop: the model writes a marker mid-answer (split across
// chunks); generation stops there, the specialist runs with the marker's
// arguments, its result is emitted and given to the model, and generation
// resumes. The marker reaches neither the tokens nor the stored turn.
func TestSpecialistLoop(t *testing.T) {
	sp := &fakeSpecialist{name: "weather", out: "12°C and rain in Lyon"}
	llm := &fakeLLM{replies: []reply{
		{tokens: []string{"Let me look. SPECIAL", `IST_REQUEST[weather:{"q":`, `"Lyon"}]`, " never streamed"}},
		{tokens: []string{"It is 12°C ", "and raining."}},
	}}
	u := newUnit(t, unitOptions(), llm, sp)
	var events []Event
	res, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Weather in Lyon?", Store: true}, u.recordEmit(&events))
	if err != nil {
		t.Fatal(err)
	}

	var types []EventType
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	want := []EventType{EventToken, EventSpecialistCall, EventSpecialistResult, EventToken, EventToken, EventDone}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if c := events[1]; c.Specialist != "weather" {
		t.Errorf("specialist_call %+v", c)
	}
	if r := events[2]; r.Specialist != "weather" || !r.OK || r.Content != sp.out {
		t.Errorf("specialist_result %+v", r)
	}
	if !slices.Equal(sp.args, []string{`{"q":"Lyon"}`}) {
		t.Errorf("specialist got %q", sp.args)
	}
	const answer = "Let me look. It is 12°C and raining."
	if got := tokens(events); got != answer || res.Response != answer {
		t.Errorf("tokens %q, response %q, want %q", got, res.Response, answer)
	}
	// Generation paused: the model's stream was stopped at the marker.
	if slices.Contains(llm.emitted, " never streamed") {
		t.Error("the stream went on after the marker")
	}
	for _, d := range u.store.byType(DocTurn) {
		if strings.Contains(d.Text, marker.Prefix) || d.Meta.Role == "assistant" && d.Text != answer {
			t.Errorf("stored turn %q", d.Text)
		}
	}

	// The second call carries the first: the answer so far with its marker
	// (the model sees what it wrote), then the result.
	calls := llm.calls()
	if len(calls) != 2 {
		t.Fatalf("%d LLM calls, want 2", len(calls))
	}
	first, second := calls[0].Messages, calls[1].Messages
	tail := second[len(first):]
	if !reflect.DeepEqual(second[:len(first)], first) || len(tail) != 2 ||
		!reflect.DeepEqual(tail[0], Message{Role: "assistant", Content: `Let me look. SPECIALIST_REQUEST[weather:{"q":"Lyon"}]`}) ||
		tail[1].Role != "user" || !strings.HasPrefix(tail[1].Content, "SPECIALIST_RESULT[weather] (ok=true):\n12°C and rain in Lyon\n") {
		t.Errorf("resumed with %+v", tail)
	}
}

// TestSpecialistLimit: a model that asks for help on every turn is given
// SpecialistMaxTurns results, then the answer ends with what it wrote, or
// with a note when it wrote nothing.
func TestSpecialistLimit(t *testing.T) {
	ask := `SPECIALIST_REQUEST[weather:{"q":"x"}]`
	cases := []struct {
		name      string
		limit     int
		text      string // written before each marker
		wantRuns  int
		wantReply string
	}{
		{"no specialist turns", 0, "Checking. ", 0, "Checking."},
		{"two turns", 2, "Checking. ", 2, "Checking. Checking. Checking."},
		{"nothing written", 1, "", 1, "I could not finish this answer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			llm := &fakeLLM{}
			for range tc.limit + 2 { // one more than needed: the limit must stop it
				llm.replies = append(llm.replies, reply{tokens: []string{tc.text, ask}})
			}
			opts := unitOptions()
			opts.SpecialistMaxTurns = tc.limit
			sp := &fakeSpecialist{name: "weather", out: "sunny"}
			u := newUnit(t, opts, llm, sp)
			var events []Event
			res, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Weather?"}, u.recordEmit(&events))
			if err != nil {
				t.Fatal(err)
			}
			if len(sp.args) != tc.wantRuns || len(llm.calls()) != tc.wantRuns+1 {
				t.Errorf("%d runs, %d LLM calls; want %d and %d", len(sp.args), len(llm.calls()), tc.wantRuns, tc.wantRuns+1)
			}
			if !strings.HasPrefix(res.Response, tc.wantReply) || tokens(events) != res.Response && strings.TrimSpace(tokens(events)) != res.Response {
				t.Errorf("response %q, tokens %q", res.Response, tokens(events))
			}
		})
	}
}

// TestSpecialistFailureGoesToModel: every way a specialist call can fail
// becomes an error result that the model reads and the client sees as a
// specialist_result with ok false; the chat itself goes on.
func TestSpecialistFailureGoesToModel(t *testing.T) {
	cases := []struct {
		name   string
		marker string
		runErr error
		block  bool // the specialist runs until its timeout
		want   string
	}{
		{"specialist fails", `SPECIALIST_REQUEST[weather:{"q":"x"}]`, Errorf(KindUpstream, "weather service down"), false,
			"error: weather service down"},
		{"foreign error stays internal", `SPECIALIST_REQUEST[weather:{"q":"x"}]`, errors.New("dial tcp 10.0.0.7:443: secret address"), false,
			"error: internal error"},
		{"unknown specialist", `SPECIALIST_REQUEST[stocks:{"q":"x"}]`, nil, false,
			`error: there is no available specialist named "stocks"`},
		{"arguments against the schema", `SPECIALIST_REQUEST[weather:{"city":"x"}]`, nil, false,
			"error: invalid arguments for weather"},
		{"malformed marker", `SPECIALIST_REQUEST[weather:{"q":]`, nil, false,
			"error: malformed specialist request"},
		{"times out", `SPECIALIST_REQUEST[weather:{"q":"x"}]`, nil, true,
			"error: weather timed out after 1ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			llm := &fakeLLM{replies: []reply{{tokens: []string{tc.marker}}, {tokens: []string{"Sorry, I could not check."}}}}
			opts := unitOptions()
			// Only the blocking case may time out: on a loaded machine a
			// specialist that fails at once can still take over 1 ms.
			opts.SpecialistTimeout = time.Minute
			if tc.block {
				opts.SpecialistTimeout = time.Millisecond
			}
			u := newUnit(t, opts, llm, &fakeSpecialist{name: "weather", out: "sunny", err: tc.runErr, block: tc.block})
			var events []Event
			res, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Weather?"}, u.recordEmit(&events))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(events, func(ev Event) bool { return ev.Type == EventSpecialistResult })
			if i < 0 || events[i].OK || !strings.HasPrefix(events[i].Content, tc.want) {
				t.Fatalf("events %+v, want a failed specialist_result %q", events, tc.want)
			}
			calls := llm.calls()
			last := calls[len(calls)-1].Messages
			if got := last[len(last)-1].Content; !strings.Contains(got, "(ok=false):\n"+tc.want) || strings.Contains(got, "secret") {
				t.Errorf("the model was told %q", got)
			}
			if res.Response != "Sorry, I could not check." {
				t.Errorf("response %q", res.Response)
			}
		})
	}
}

// roomFake is a specialist that acts on the room (TagRoom) and records the
// call it got.
type roomFake struct {
	mu   sync.Mutex
	call SpecialistCall
}

func (s *roomFake) Info() SpecialistInfo {
	return SpecialistInfo{Name: "remind", Description: "Reminds the room.", Priority: PriorityMedium, Enabled: true,
		Tags: []string{TagRoom}, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (s *roomFake) Run(_ context.Context, call SpecialistCall) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.call = call
	return "set", nil
}

// TestRoomSpecialist: a specialist tagged TagRoom is offered, and runs,
// only in a chat from a room, and gets the room, the asker and the event.
func TestRoomSpecialist(t *testing.T) {
	sp := &roomFake{}
	call := `SPECIALIST_REQUEST[remind:{}]`
	llm := &fakeLLM{replies: []reply{
		{tokens: []string{call}}, {tokens: []string{"No room."}},
		{tokens: []string{call}}, {tokens: []string{"Done."}},
	}}
	u := newUnit(t, unitOptions(), llm, sp)
	if _, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Remind me", Store: true}, func(Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if sp.call.RoomID != "" {
		t.Error("a chat without a room ran a room specialist")
	}
	speaker := &Speaker{Name: "Alice", UserID: "@alice:x"}
	if _, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Remind me", Store: true, RoomID: "!r:x", EventID: "$q",
		Speaker: speaker}, func(Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	calls := llm.calls()
	if len(calls) != 4 {
		t.Fatalf("%d LLM calls, want 4", len(calls))
	}
	if strings.Contains(calls[0].Messages[0].Content, "remind") || !strings.Contains(calls[2].Messages[0].Content, "- remind") {
		t.Error("the room specialist was offered outside a room, or not in one")
	}
	if !strings.Contains(calls[1].Messages[len(calls[1].Messages)-1].Content, `no available specialist named "remind"`) {
		t.Errorf("outside a room the call was not refused: %q", calls[1].Messages[len(calls[1].Messages)-1].Content)
	}
	if sp.call.RoomID != "!r:x" || sp.call.EventID != "$q" || sp.call.Speaker == nil || sp.call.Speaker.UserID != "@alice:x" {
		t.Errorf("call %+v", sp.call)
	}
}
