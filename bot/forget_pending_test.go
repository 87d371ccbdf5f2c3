package bot

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/storage"
)

// abandonCounter counts the redactions the bridge gave up on.
type abandonCounter struct {
	noObserver
	abandoned atomic.Int32
}

func (c *abandonCounter) BotRedactionAbandoned() { c.abandoned.Add(1) }

// TestRedactionRetriesAreBounded (issue 26): a redaction whose cascade
// keeps failing (here the memory store is closed) is retried with backoff
// up to maxRedactionAttempts, then abandoned: logged at ERROR, counted,
// and left pending but never due in bridge_redactions.
func TestRedactionRetriesAreBounded(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "bridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := core.New(core.Deps{Store: store, Embedder: embed.Hash{}, LLM: ollama.New(ollama.Options{BaseURL: llmtest.ClosedURL(t), Model: "m"})},
		core.DefaultOptions())
	defer svc.Close()
	store.Close() // every cascade fails from now on
	var logs bytes.Buffer
	obs := &abandonCounter{}
	clock := &testClock{}
	b, err := New(Options{Homeserver: "http://unused", UserID: "@ada:x", Password: "p", MaxContextMessages: 10,
		Workers: 1, ChatTimeout: time.Minute, ShutdownGrace: time.Second},
		Deps{Backend: NewCoreBackend(svc, nil), DB: db.Writer(), State: db.Bridge(), Observer: obs, Now: clock.Now,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	room, evt := id.RoomID("!r:x"), id.EventID("$asked")
	bridge := db.Bridge()
	link := storage.BridgeLink{EventID: evt.String(), DocID: core.NewDocID(), Kind: storage.LinkTurn, ConversationID: core.NewConversationID()}
	if err := bridge.AddLinks(ctx, room.String(), []storage.BridgeLink{link}, clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := bridge.RecordRedaction(ctx, room.String(), evt.String(), clock.Now()); err != nil {
		t.Fatal(err)
	}
	farFuture := clock.Now().Add(24 * time.Hour)
	for attempt := range maxRedactionAttempts {
		due, err := bridge.DueRedactions(ctx, farFuture, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) != 1 || due[0].Attempts != attempt {
			t.Fatalf("before attempt %d: due %+v", attempt+1, due)
		}
		if err := b.forget.apply(ctx, room, evt, storage.RedactionEvent, due[0].Attempts); err != nil {
			t.Fatal(err)
		}
	}
	if due, err := bridge.DueRedactions(ctx, farFuture, 10); err != nil || len(due) != 0 {
		t.Fatalf("an abandoned redaction should never be due again: %+v %v", due, err)
	}
	if redacted, err := bridge.Redacted(ctx, room.String(), evt.String()); err != nil || !redacted {
		t.Errorf("the abandoned redaction should stay recorded: %v %v", redacted, err)
	}
	if n := obs.abandoned.Load(); n != 1 {
		t.Errorf("abandoned counted %d times, want 1", n)
	}
	if got := logs.String(); strings.Count(got, "level=ERROR msg=\"redaction abandoned") != 1 || strings.Count(got, "redaction failed; retrying") != maxRedactionAttempts-1 {
		t.Errorf("want %d retries logged, then one ERROR:\n%s", maxRedactionAttempts-1, got)
	}
}
