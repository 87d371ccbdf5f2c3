package bot

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/storage"
)

// newSweepBot is a bot that is never started, with the real store and core
// and an injected clock: enough to run the retention sweep and the room
// jobs directly. Everything closes when the test ends.
func newSweepBot(t *testing.T, llm *llmtest.Server) (*storage.DB, *core.Service, *Bot, *testClock) {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := &testClock{}
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}, LLM: ollama.New(ollama.Options{BaseURL: llm.URL(), Model: "m"}),
		Now: clock.Now}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	b, err := New(Options{Homeserver: "http://unused", UserID: "@ada:x", Password: "p", RetentionDays: 30, MaxContextMessages: 10,
		Workers: 1, ChatTimeout: time.Minute, ShutdownGrace: time.Second},
		Deps{Backend: NewCoreBackend(svc, nil), DB: db.Writer(), State: db.Bridge(), Retention: svc, Now: clock.Now,
			Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return db, svc, b, clock
}

// TestRetentionSweep backdates data with an injected clock and checks that
// one sweep deletes what the bridge caused to be stored before the limit
// (room messages, and turns from rooms), and keeps newer data and documents
// that did not come from a room.
func TestRetentionSweep(t *testing.T) {
	ctx := context.Background()
	db, svc, b, clock := newSweepBot(t, llmtest.New(t))

	room := id.RoomID("!retention:localhost")
	old, recent := -40*24*time.Hour, -24*time.Hour
	for _, m := range []struct {
		id  id.EventID
		age time.Duration
	}{{"$old", old}, {"$recent", recent}} {
		if err := b.bridge.AddMessage(ctx, room.String(), storage.BridgeMessage{EventID: m.id.String(), Sender: "@a:x", Text: "t", Time: time.Now().Add(m.age)}, 10); err != nil {
			t.Fatal(err)
		}
	}
	// A reminder asked for before the limit goes, though due later: its
	// text is what the member said then.
	for ev, age := range map[string]time.Duration{"$old-reminder": old, "$recent-reminder": recent} {
		r := storage.BridgeReminder{RoomID: room.String(), Member: "@a:x", Text: "t", Due: time.Now().Add(time.Hour), EventID: ev, Created: time.Now().Add(age)}
		if _, err := b.bridge.AddReminder(ctx, r, 10, 10); err != nil {
			t.Fatal(err)
		}
	}
	chatAt := func(age time.Duration, roomID id.RoomID) {
		clock.Set(age)
		_, err := svc.Chat(ctx, core.ChatRequest{Prompt: "hello", RoomID: roomID.String(), Store: true, UserTimestamp: clock.Now()},
			func(core.Event) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	chatAt(old, room)    // 2 old turns from the room: deleted
	chatAt(recent, room) // 2 recent turns from the room: kept
	chatAt(old, "")      // 2 old turns from the HTTP API: not the bridge's, kept
	clock.Set(0)

	messages, documents := b.forget.retention.Sweep(ctx)
	if messages != 1 || documents != 2 {
		t.Errorf("sweep deleted %d messages and %d documents, want 1 and 2", messages, documents)
	}
	var kept []string
	rows, err := db.Reader().QueryContext(ctx, `SELECT event_id FROM bridge_messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		kept = append(kept, s)
	}
	rows.Close()
	if len(kept) != 1 || kept[0] != "$recent" {
		t.Errorf("room messages kept: %v, want [$recent]", kept)
	}
	if rs, err := b.bridge.RoomReminders(ctx, room.String()); err != nil || len(rs) != 1 || rs[0].EventID != "$recent-reminder" {
		t.Errorf("reminders kept: %+v, %v; want only the recent one", rs, err)
	}
	var fromRoom, notFromRoom int
	_ = db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE room_id = ?`, room.String()).Scan(&fromRoom)
	_ = db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE room_id IS NULL AND type = 'turn'`).Scan(&notFromRoom)
	if fromRoom != 2 || notFromRoom != 2 {
		t.Errorf("documents kept: %d from the room (want 2), %d from the API (want 2)", fromRoom, notFromRoom)
	}

	// DATA_RETENTION_DAYS=0 keeps everything: the loop returns at once.
	b.forget.retention.Days = 0
	done := make(chan struct{})
	go func() { b.forget.retention.Loop(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("retention loop with 0 days should not run")
	}
}

// TestRunRetriesUnreachableHomeserver: a homeserver that is not up yet is
// retried until the bot is stopped, which is a clean stop. Each try logs one
// warning that says the homeserver cannot be reached (not that the
// credentials were refused) and when the next try is; mautrix's own request
// errors stay out of the log.
func TestRunRetriesUnreachableHomeserver(t *testing.T) {
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, creds := range []Options{{Password: "p"}, {AccessToken: "syt_token"}} {
		logs := &syncBuffer{}
		opts := creds
		opts.Homeserver, opts.UserID = llmtest.ClosedURL(t), "@ada:x"
		opts.Workers, opts.ChatTimeout, opts.ShutdownGrace = 1, time.Minute, time.Second
		b, err := New(opts, Deps{Backend: NewCoreBackend(nil, nil), DB: db.Writer(), State: db.Bridge(), Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()
		time.Sleep(time.Second)
		if st := b.Status(); st.State != StateConnecting || !strings.Contains(st.Err, "cannot reach the homeserver") {
			t.Errorf("status while retrying = %+v, want connecting with the reason", st)
		}
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after a stop while retrying", err)
		}
		cancel()
		if st := b.Status(); st.State != StateStopped || st.Err != "" {
			t.Errorf("status after the stop = %+v, want stopped without an error", st)
		}
		var warns int
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			switch {
			case strings.Contains(l, "level=WARN") && strings.Contains(l, "cannot reach the homeserver") &&
				strings.Contains(l, "reason=\"connection refused\"") && strings.Contains(l, "next_retry="):
				warns++
			case strings.Contains(l, "level=WARN"), strings.Contains(l, "level=ERROR"):
				t.Errorf("unexpected line while the homeserver is down: %s", l)
			}
			if strings.Contains(l, "refused MATRIX") || strings.Contains(l, "syt_token") {
				t.Errorf("the line blames (or shows) the credentials: %s", l)
			}
		}
		if warns != 2 { // at 0 s and after 2 s
			t.Errorf("want one warning per try (2), got %d:\n%s", warns, logs.String())
		}
	}
}
