package bot

import (
	"context"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
)

// TestRetentionSweepRemovesRoomMemories: the automatic memory learned from
// a room's exchange, the memory of a `!ada remember` and their links go
// with the sweep once older than the limit, and so do their histories.
func TestRetentionSweepRemovesRoomMemories(t *testing.T) {
	ctx := context.Background()
	llm := llmtest.New(t)
	extractFacts(t, llm, map[string]string{"my cat is called Miso": "alice's cat is called Miso"})
	db, svc, b, clock := newSweepBot(t, llm)
	room := id.RoomID("!memories:localhost")
	scope := core.MemoryQuery{Scope: core.EntityScope(room.String()), Limit: 20}
	clock.Set(-40 * 24 * time.Hour)
	res, err := svc.Chat(ctx, core.ChatRequest{Prompt: "my cat is called Miso", RoomID: room.String(), Entity: room.String(),
		Speaker: &core.Speaker{Name: "alice", UserID: "@alice:localhost"}, Store: true, UserTimestamp: clock.Now()},
		func(core.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	remembered, err := b.deps.Backend.CreateMemory(ctx, core.MemoryInput{Text: "alice: the code is 12", Entity: room.String(), RoomID: room.String()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.bridge.AddLinks(ctx, room.String(), []storage.BridgeLink{{EventID: "$remember", DocID: remembered.ID, Kind: storage.LinkMemory},
		{EventID: "$question", DocID: res.TurnIDs[0], Kind: storage.LinkTurn, ConversationID: res.ConversationID}}, b.now()); err != nil {
		t.Fatal(err)
	}
	svc.Wait() // the automatic memory is learned in the background
	page, err := svc.MemoryPage(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	mems := page.Items
	if len(mems) < 2 {
		t.Fatalf("the automatic memory was not made: %v", memoryTexts(mems))
	}
	clock.Set(0)

	b.forget.retention.Sweep(ctx)
	page, err = svc.MemoryPage(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 0 {
		t.Fatalf("the room's old memories survived the sweep: %v", memoryTexts(page.Items))
	}
	// Retention keeps no trace of the text, only the record that the
	// memory went and why (DECISIONS.md, Forgetting).
	for _, m := range mems {
		hist, err := svc.MemoryHistory(ctx, m.ID)
		if err != nil || len(hist) == 0 || hist[len(hist)-1].Event != core.HistoryDelete || hist[len(hist)-1].Reason == "" {
			t.Errorf("the history of %q should record its deletion: %+v (%v)", m.Text, hist, err)
		}
		for _, h := range hist {
			if h.Text != "" {
				t.Errorf("the history of %q keeps its text in its %s entry", m.Text, h.Event)
			}
		}
	}
	var links int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM bridge_links`).Scan(&links); err != nil || links != 0 {
		t.Errorf("the sweep left %d redaction links (%v)", links, err)
	}
}
