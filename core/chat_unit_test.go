package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	errClientGone = errors.New("client gone")
	errDiskFull   = errors.New("disk full")
)

// TestChatWriteOrder: a chat stores its turns, then emits done (which
// carries their ids), then saves the requested memory, and only then queues
// the summary and the extraction. When the client leaves or the context
// ends before the answer is complete, nothing is written; when the client
// leaves at done, the turns are already stored but nothing follows them.
func TestChatWriteOrder(t *testing.T) {
	answer := reply{tokens: []string{"You drink ", "green tea."}}
	summary := reply{tokens: []string{"Sam asked which tea they drink: green tea."}}
	facts := reply{tokens: []string{`{"facts":[{"text":"Sam drinks green tea","importance":3,"replaces":[]}]}`}}
	written := []string{"emit token", "emit token", "put turn(user) turn(assistant)", "emit done"}
	cases := []struct {
		name     string
		noStore  bool
		replies  []reply
		failOn   EventType // emit returns errClientGone for this event
		cancelOn EventType // the context is cancelled at this event
		expired  bool      // the context's deadline has passed
		putErr   error
		want     []string
		wantErr  func(error) bool
	}{
		{name: "turns, done, memory, then background", replies: []reply{answer, summary, facts},
			want: append(slices.Clone(written), "apply memory", "put summary", "apply memory(auto)")},
		{name: "store false writes nothing", noStore: true, replies: []reply{answer},
			want: []string{"emit token", "emit token", "emit done"}},
		{name: "client leaves mid-answer", replies: []reply{answer}, failOn: EventToken,
			want: []string{"emit token"}, wantErr: isErr(errClientGone)},
		{name: "client leaves at done", replies: []reply{answer}, failOn: EventDone,
			want: written, wantErr: isErr(errClientGone)},
		{name: "context cancelled mid-answer", replies: []reply{answer}, cancelOn: EventToken,
			want: []string{"emit token"}, wantErr: isKind(KindCanceled, "request cancelled")},
		{name: "deadline passed", replies: []reply{answer}, expired: true,
			want: nil, wantErr: isKind(KindCanceled, "timed out")},
		{name: "model fails", replies: []reply{{tokens: []string{"You "}, err: Errorf(KindUpstream, "LLM backend fake: boom")}},
			want: []string{"emit token"}, wantErr: isKind(KindUpstream, "boom")},
		{name: "turns cannot be stored", replies: []reply{answer}, putErr: errDiskFull,
			want: []string{"emit token", "emit token"}, wantErr: isErr(errDiskFull)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := unitOptions()
			opts.SummaryEveryN, opts.AutoMemory = 1, true
			u := newUnit(t, opts, &fakeLLM{replies: tc.replies})
			u.store.putErr = tc.putErr
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.expired {
				ctx, cancel = context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
			}
			var events []Event
			emit := func(ev Event) error {
				u.j.add("emit %s", ev.Type)
				events = append(events, ev)
				if ev.Type == tc.cancelOn {
					cancel()
				}
				if ev.Type == tc.failOn {
					return errClientGone
				}
				return nil
			}
			req := ChatRequest{Prompt: "Which tea do I drink?", Store: !tc.noStore, SaveMemory: true, Speaker: &Speaker{Name: "Sam"}}
			res, err := u.svc.Chat(ctx, req, emit)
			u.svc.Wait() // the background jobs, if any were queued
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !tc.wantErr(err) {
				t.Fatalf("err = %v", err)
			}
			if got := u.j.all(); !slices.Equal(got, tc.want) {
				t.Fatalf("journal:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if tc.wantErr == nil && !tc.noStore {
				checkStoredChat(t, u, res, events)
			}
		})
	}
}

// checkStoredChat: done carries the ids of the stored turns, which hold the
// prompt and the whole answer at the fixed clock, in order; the memory has
// the default text.
func checkStoredChat(t *testing.T, u *unit, res ChatResult, events []Event) {
	t.Helper()
	done := events[len(events)-1]
	if done.Type != EventDone || !slices.Equal(done.Done.TurnIDs, res.TurnIDs) || len(res.TurnIDs) != 2 {
		t.Fatalf("last event %+v, result turn ids %v", done, res.TurnIDs)
	}
	user, err1 := u.store.Get(context.Background(), res.TurnIDs[0])
	asst, err2 := u.store.Get(context.Background(), res.TurnIDs[1])
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if user.Text != "Which tea do I drink?" || user.Meta.Speaker != "Sam" || *user.Meta.TurnIndex != 0 || !user.Meta.Timestamp.Equal(testClock) {
		t.Errorf("user turn %+v", user)
	}
	if asst.Text != "You drink green tea." || *asst.Meta.TurnIndex != 1 || !asst.Meta.Timestamp.After(user.Meta.Timestamp) {
		t.Errorf("assistant turn %+v", asst)
	}
	mem, err := u.store.Get(context.Background(), res.MemoryID)
	if err != nil || mem.Text != "User asked: Which tea do I drink?\nAda answered: You drink green tea." {
		t.Errorf("memory %q, %v", mem.Text, err)
	}
}

func isErr(want error) func(error) bool {
	return func(err error) bool { return errors.Is(err, want) }
}

func isKind(k ErrorKind, msg string) func(error) bool {
	return func(err error) bool { return KindOf(err) == k && strings.Contains(SafeMessage(err), msg) }
}

// TestChatThinking: thinking reaches the client and the result only when
// asked; a model that cannot think is asked again without, with a note.
func TestChatThinking(t *testing.T) {
	cases := []struct {
		name         string
		include      bool
		replies      []reply
		wantThinking *string
		wantNote     string
		wantEvents   []EventType
	}{
		{"asked", true, []reply{{thinking: []string{"hmm"}, tokens: []string{"Hi."}}}, new("hmm"), "",
			[]EventType{EventThinking, EventToken, EventDone}},
		{"not asked", false, []reply{{thinking: []string{"hmm"}, tokens: []string{"Hi."}}}, nil, "",
			[]EventType{EventToken, EventDone}},
		{"model cannot think", true, []reply{{err: ErrThinkingUnsupported}, {tokens: []string{"Hi."}}}, nil,
			"include_thinking was ignored: the model fake-model cannot think", []EventType{EventToken, EventDone}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnit(t, unitOptions(), &fakeLLM{replies: tc.replies})
			var events []Event
			res, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "Hello", IncludeThinking: tc.include}, u.recordEmit(&events))
			if err != nil {
				t.Fatal(err)
			}
			var types []EventType
			for _, ev := range events {
				types = append(types, ev.Type)
			}
			if !slices.Equal(types, tc.wantEvents) || res.Note != tc.wantNote || (res.Thinking == nil) != (tc.wantThinking == nil) ||
				res.Thinking != nil && *res.Thinking != *tc.wantThinking {
				t.Fatalf("events %v, note %q, thinking %v", types, res.Note, res.Thinking)
			}
			// The retry without thinking is the only call with Think unset
			// when it was asked for.
			if calls := u.llm.calls(); calls[0].Think != tc.include || calls[len(calls)-1].Think != (tc.include && tc.wantNote == "") {
				t.Errorf("Think sent: %+v", calls)
			}
		})
	}
}
