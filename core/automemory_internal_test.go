package core

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseFacts(t *testing.T) {
	cases := []struct {
		name, answer string
		want         []string // texts kept
		wantErr      bool
	}{
		{"plain", `{"facts": [{"text": "Sam likes tea", "importance": 3, "replaces": []}]}`, []string{"Sam likes tea"}, false},
		{"fenced with text around", "Here you go:\n```json\n{\"facts\": [{\"text\": \"Sam has a cat\", \"importance\": 2, \"replaces\": [\"m1\"]}]}\n```\nDone.", []string{"Sam has a cat"}, false},
		{"braces inside strings", `{"facts": [{"text": "Sam's code is {x}", "importance": 3, "replaces": []}]}`, []string{"Sam's code is {x}"}, false},
		{"empty", `{"facts": []}`, nil, false},
		{"no facts key", `{}`, nil, false},
		{"importance out of range", `{"facts": [{"text": "a", "importance": 9, "replaces": []}, {"text": "b", "importance": 0, "replaces": []}]}`, nil, false},
		{"blank text", `{"facts": [{"text": "  ", "importance": 3, "replaces": []}]}`, nil, false},
		{"wrong item shape", `{"facts": ["Sam likes tea", {"text": "ok", "importance": 1, "replaces": []}]}`, []string{"ok"}, false},
		{"too many", `{"facts": [` + strings.Repeat(`{"text": "f", "importance": 1, "replaces": []},`, 7) + `{"text": "f", "importance": 1, "replaces": []}]}`, []string{"f", "f", "f", "f", "f"}, false},
		{"not JSON", "I found nothing worth remembering.", nil, true},
		{"wrong shape", `{"facts": "Sam likes tea"}`, nil, true},
		{"broken then good", `{"facts": [} and then {"facts": [{"text": "x", "importance": 3, "replaces": []}]}`, []string{"x"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			facts, err := parseFacts(tc.answer)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			var got []string
			for _, f := range facts {
				got = append(got, f.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("facts %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeFact(t *testing.T) {
	if a, b := normalizeFact("Sam likes tea."), normalizeFact("  sam LIKES   tea"); a != b {
		t.Fatalf("%q != %q", a, b)
	}
	if normalizeFact("Sam likes tea") == normalizeFact("Sam likes coffee") {
		t.Fatal("different facts normalised alike")
	}
}

// TestJobQueueOrdersPerKey: jobs of one key run one at a time in order;
// jobs of different keys run in parallel up to the worker count.
func TestJobQueueOrdersPerKey(t *testing.T) {
	q := newJobQueue(2, slog.New(slog.DiscardHandler))
	defer q.close()
	var mu sync.Mutex
	var order []int
	running, peak := 0, 0
	for i := range 10 {
		q.submit(context.Background(), "conv-a", "test", func(context.Context) {
			mu.Lock()
			order = append(order, i)
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
		})
	}
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	for _, key := range []string{"conv-b", "conv-c"} {
		q.submit(context.Background(), key, "test", func(context.Context) { started <- struct{}{}; <-release })
	}
	for range 2 {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("jobs of different keys did not run in parallel")
		}
	}
	close(release)
	q.wait()
	if !slices.Equal(order, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || peak != 1 {
		t.Fatalf("order %v, peak %d", order, peak)
	}
	q.submit(context.Background(), "conv-a", "panics", func(context.Context) { panic("boom") })
	q.wait() // a panicking job is recovered and the queue goes on
}

// TestJobQueueCloseCancels: close cancels the running job's context, drops
// the queued ones and returns only when the running one has.
func TestJobQueueCloseCancels(t *testing.T) {
	q := newJobQueue(1, slog.New(slog.DiscardHandler))
	started, ranQueued := make(chan struct{}), false
	cancelled := false
	q.submit(context.Background(), "conv-a", "test", func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		cancelled = true
	})
	q.submit(context.Background(), "conv-a", "test", func(context.Context) { ranQueued = true })
	<-started
	q.close()
	if !cancelled || ranQueued {
		t.Fatalf("running job cancelled: %v; queued job ran: %v", cancelled, ranQueued)
	}
	q.submit(context.Background(), "conv-a", "after close", func(context.Context) { ranQueued = true })
	q.wait()
	if ranQueued {
		t.Fatal("a job submitted after close ran")
	}
}

// TestJobQueueCarriesTheRequestLogger: a background job logs with the
// logger of the request that submitted it (its request id), even after
// that request's context has ended; its panic is logged the same way.
func TestJobQueueCarriesTheRequestLogger(t *testing.T) {
	var buf bytes.Buffer
	q := newJobQueue(1, slog.New(slog.DiscardHandler))
	reqLog := slog.New(slog.NewTextHandler(&buf, nil)).With("request_id", "r-42")
	origin, cancel := context.WithCancel(WithLogger(context.Background(), reqLog))
	cancel() // the request is over before its background job runs
	var jobErr error
	q.submit(origin, "conv-a", "test", func(ctx context.Context) {
		jobErr = ctx.Err()
		LoggerFrom(ctx, nil).Info("from the job")
	})
	q.submit(origin, "conv-a", "panics", func(context.Context) { panic("boom") })
	q.wait()
	if jobErr != nil {
		t.Errorf("the job's context ended with the request's: %v", jobErr)
	}
	out := buf.String()
	if strings.Count(out, "request_id=r-42") != 2 || !strings.Contains(out, "from the job") || !strings.Contains(out, "background job panicked") {
		t.Errorf("the job's lines must carry the request's logger:\n%s", out)
	}
}

// TestSubjectOf: the name a fact is about maps to the member's user id by
// display name, possessive, localpart or user id; unknown names to none.
func TestSubjectOf(t *testing.T) {
	members := roomMembers(ChatRequest{Speaker: &Speaker{Name: "Alice", UserID: "@alice:x.org"},
		ContextMessages: []ContextMessage{{Sender: "Bob B", UserID: "@bob:x.org"}, {Sender: "Eve", UserID: "not an id"}}})
	for about, want := range map[string]string{"Alice": "@alice:x.org", "bob b": "@bob:x.org", "Bob B's": "@bob:x.org",
		"bob": "@bob:x.org", "@bob:x.org": "@bob:x.org", "Eve": "", "": "", "Carol": ""} {
		if got := subjectOf(about, members); got != want {
			t.Errorf("subjectOf(%q) = %q, want %q", about, got, want)
		}
	}
}

// TestSubjectNeverByASharedName (issue 36 item 4): a name two members go
// by (mallory took bob's display name, or bob's localpart) decides no
// subject; the user id, and the label with it, still do. The room's
// current members count, not only who spoke.
func TestSubjectNeverByASharedName(t *testing.T) {
	const bob, mallory, alice = "@bob:x.org", "@mallory:x.org", "@alice:x.org"
	room := Roster{{Name: "Alice", UserID: alice}, {Name: "Bob", UserID: bob}, {Name: "Bob", UserID: mallory}}
	cases := map[string]ChatRequest{
		// mallory spoke, bob did not: before, "Bob" was mallory.
		"the room's members": {Speaker: &Speaker{Name: "Alice", UserID: alice}, Members: room,
			ContextMessages: []ContextMessage{{Sender: "Bob", UserID: mallory}}},
		"who spoke": {Speaker: &Speaker{Name: "Alice", UserID: alice},
			ContextMessages: []ContextMessage{{Sender: "Bob", UserID: bob}, {Sender: "Bob", UserID: mallory}}},
	}
	for name, req := range cases {
		members := roomMembers(req)
		for about, want := range map[string]string{"Bob": "", "bob's": "", "Alice": alice, bob: bob, mallory: mallory,
			"Bob (" + mallory + ")": mallory, "Bob (" + bob + ")": bob, "mallory": mallory} {
			if got := subjectOf(about, members); got != want {
				t.Errorf("%s: subjectOf(%q) = %q, want %q", name, about, got, want)
			}
		}
	}
	// A display name that is another member's localpart is shared too.
	members := roomMembers(ChatRequest{Members: Roster{{Name: "Bob", UserID: bob}, {Name: "bob", UserID: "@eve:x.org"}}})
	if got := subjectOf("bob", members); got != "" {
		t.Errorf("a name that is one member's localpart and another's display name resolved to %q", got)
	}
	// Labels: the user id where the name is shared or shaped like one.
	labels := room.Labels()
	for _, c := range []struct{ name, id, want string }{
		{"Bob", mallory, "Bob (" + mallory + ")"}, {"Bob", bob, "Bob (" + bob + ")"}, {"Alice", alice, "Alice"},
		{"Bob (" + bob + ")", mallory, "Bob (" + bob + ") (" + mallory + ")"}, {"", mallory, mallory},
	} {
		if got := labels.Of(c.name, c.id); got != c.want {
			t.Errorf("Labels().Of(%q, %q) = %q, want %q", c.name, c.id, got, c.want)
		}
	}
}

// TestRosterNamed (issue 40 item 4): a remembered text is about the one
// member it names by a name no one else goes by, as a whole word; the
// teller and Ada are not subjects, and two members named make none.
func TestRosterNamed(t *testing.T) {
	const bob, mallory, carol, ada = "@bob:x.org", "@mallory:x.org", "@carol:x.org", "@ada:x.org"
	room := Roster{{Name: "Carol", UserID: carol}, {Name: "Bob", UserID: bob}, {Name: "Ada", UserID: ada}}
	for text, want := range map[string]string{
		"bob owes me a copy of Dune": bob, "Bob's bike is red": bob, "ask @bob:x.org": bob,
		"bobby is not bob's friend": bob, "bobby likes tea": "", "I like tea": "", "Carol likes tea": "",
		"Ada knows bob": bob, "bob owes Mallory": bob,
	} {
		if got := room.Named(text, carol, ada); got != want {
			t.Errorf("Named(%q) = %q, want %q", text, got, want)
		}
	}
	room = append(room, Speaker{Name: "Mallory", UserID: mallory})
	if got := room.Named("bob owes Mallory a book", carol); got != "" {
		t.Errorf("two members named: %q", got)
	}
	shared := Roster{{Name: "Bob", UserID: bob}, {Name: "Bob", UserID: mallory}, {Name: "Carol", UserID: carol}}
	for text, want := range map[string]string{"Bob owes me": "", "Bob (" + mallory + ") owes me": mallory, "bob owes me": ""} {
		if got := shared.Named(text, carol); got != want {
			t.Errorf("shared name: Named(%q) = %q, want %q", text, got, want)
		}
	}
}
