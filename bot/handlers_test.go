package bot

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"
)

// TestGuardRecovers: a panic in a sync-loop handler must never escape into
// mautrix, where it would end the sync loop.
func TestGuardRecovers(t *testing.T) {
	logs := &syncBuffer{}
	b := &Bot{log: slog.New(slog.NewTextHandler(logs, nil))}
	h := b.guard("message", func(context.Context, *event.Event) { panic("boom") })
	h(context.Background(), &event.Event{RoomID: "!r:x", ID: "$e"})
	if !strings.Contains(logs.String(), "panic in sync handler") || !strings.Contains(logs.String(), "event_id=$e") {
		t.Errorf("the panic should be logged with the event, got %q", logs.String())
	}
}
