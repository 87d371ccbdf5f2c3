package core_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// newBridgedService is a service on a real database whose bridge tables
// hear what core deletes, as cmd/ada wires them.
func newBridgedService(t *testing.T) (*core.Service, *storage.Bridge) {
	svc, db := newBridgedServiceDB(t)
	return svc, db.Bridge()
}

// newBridgedServiceDB is newBridgedService with the database.
func newBridgedServiceDB(t *testing.T) (*core.Service, *storage.DB) {
	t.Helper()
	db := openDB(t)
	return newServiceOn(t, db, db.Bridge()), db
}

// openDB is a real database of the test's own.
func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newServiceOn is a service on store whose deletions forgot hears of.
func newServiceOn(t *testing.T, store core.Store, forgot core.ForgetListener) *core.Service {
	svc := core.New(core.Deps{Store: store, Embedder: embed.Hash{}, Forgotten: forgot}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	return svc
}

// TestDeletedMemoryLeavesNoWhy: a memory deleted through the API (not a
// bridge command) takes the rooms' last answers that quote it, so `!ada
// why` cannot show its words; an answer quoting something else stays.
func TestDeletedMemoryLeavesNoWhy(t *testing.T) {
	ctx := context.Background()
	svc, b := newBridgedService(t)
	m, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "Alice's locker code is 4417"})
	if err != nil {
		t.Fatal(err)
	}
	save := func(room string, ids ...string) {
		t.Helper()
		err := b.SaveWhy(ctx, room, storage.BridgeWhy{QuestionEvent: "$q" + room, ReplyEvent: "$r" + room, DocIDs: ids, Body: []byte(`{"text":"4417"}`), At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
	}
	save("!quoting:example.org", "doc-other", m.ID)
	save("!unrelated:example.org", "doc-other")
	if err := svc.DeleteMemory(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := b.LoadWhy(ctx, "!quoting:example.org"); err != nil || ok {
		t.Errorf("the last answer quoting the deleted memory is still kept (%v)", err)
	}
	if _, ok, err := b.LoadWhy(ctx, "!unrelated:example.org"); err != nil || !ok {
		t.Errorf("a last answer not quoting it went too (%v)", err)
	}
}

// TestForgottenMemberLeavesNoRoomMessages: forgetting a Matrix user
// through the API (DELETE /v1/memory?entity=@alice:...) takes their
// stored messages in every room, the last answers to their questions and
// their memory page sessions; another member's stay.
func TestForgottenMemberLeavesNoRoomMessages(t *testing.T) {
	ctx := context.Background()
	svc, b := newBridgedService(t)
	const alice, bob = "@alice:example.org", "@bob:example.org"
	now := time.Now()
	rooms := []string{"!one:example.org", "!two:example.org"}
	for _, room := range rooms {
		for _, m := range []storage.BridgeMessage{
			{EventID: "$a" + room, Sender: alice, Text: "my locker code is 4417", Time: now},
			{EventID: "$b" + room, Sender: bob, Text: "hello", Time: now},
		} {
			if err := b.AddMessage(ctx, room, m, 50); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := b.SaveWhy(ctx, rooms[1], storage.BridgeWhy{QuestionEvent: "$a" + rooms[1], ReplyEvent: "$r", Body: []byte(`{"question":"my locker code is 4417"}`), At: now})
	if err != nil {
		t.Fatal(err)
	}
	tok, ok, err := b.IssueWebLogin(ctx, alice, now, 15*time.Minute, time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	_, epoch, err := b.RedeemWebLogin(ctx, tok, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Forget(ctx, core.ForgetRequest{Entity: alice}); err != nil {
		t.Fatal(err)
	}
	for _, room := range rooms {
		msgs, err := b.RecentMessages(ctx, room, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 1 || msgs[0].Sender != bob {
			t.Errorf("%s keeps %+v, want only bob's message", room, msgs)
		}
	}
	if _, ok, err := b.LoadWhy(ctx, rooms[1]); err != nil || ok {
		t.Errorf("the last answer to alice's question is still kept (%v)", err)
	}
	if cur, err := b.WebSessionEpoch(ctx, alice); err != nil || cur == epoch {
		t.Errorf("alice's memory page session is still open (%v)", err)
	}
}

// TestDeletedTurnLeavesNoWhyOfWhatWasLearnedFromIt: deleting a turn
// (DELETE /v1/conversations/{cid}/turns/{tid}) deletes, in the store, the
// automatic memory learned only from it; a last answer quoting that memory
// goes too, though the deletion named only the turn.
func TestDeletedTurnLeavesNoWhyOfWhatWasLearnedFromIt(t *testing.T) {
	ctx := context.Background()
	svc, db := newBridgedServiceDB(t)
	conv := core.NewConversationID()
	turn := func(i int, role, text string) core.Document {
		return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: core.Metadata{
			Type: core.DocTurn, Source: core.SourceChat, Scope: core.ScopeGlobal, Timestamp: time.Now(), ConversationID: conv, Role: role, TurnIndex: &i}}
	}
	user, answer := turn(0, "user", "my locker code is 4417"), turn(1, "assistant", "Noted.")
	if err := db.Put(ctx, user, answer); err != nil {
		t.Fatal(err)
	}
	m, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "The locker code is 4417", ConversationID: conv, SourceIDs: []string{user.ID, answer.ID}})
	if err != nil {
		t.Fatal(err)
	}
	b := db.Bridge()
	if err := b.SaveWhy(ctx, "!r:example.org", storage.BridgeWhy{QuestionEvent: "$q", ReplyEvent: "$r", DocIDs: []string{m.ID}, Body: []byte(`{}`), At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []core.Document{user, answer} {
		if _, err := svc.DeleteTurns(ctx, conv, []string{d.ID}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.GetMemory(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the memory learned only from the deleted turns stays: %v", err)
	}
	if _, ok, err := b.LoadWhy(ctx, "!r:example.org"); err != nil || ok {
		t.Errorf("the last answer quoting the memory learned from the deleted turns is kept (%v)", err)
	}
}

// readCountingStore counts the documents read one by one, and the lists
// asked for documents older than a time (retention's filter).
type readCountingStore struct {
	*storage.DB
	gets, olderLists int
}

func (s *readCountingStore) List(ctx context.Context, f core.Filter, limit int) ([]core.Document, error) {
	if !f.OlderThan.IsZero() {
		s.olderLists++
	}
	return s.DB.List(ctx, f, limit)
}

func (s *readCountingStore) Get(ctx context.Context, id string) (core.Document, error) {
	s.gets++
	return s.DB.Get(ctx, id)
}

// TestDeletingATurnReadsOnlyWhatWasLearnedFromIt: the listener hears of
// the memories a turn's deletion leaves without a source from the store's
// cascade, without core reading the memories the conversation (a room's,
// which grows with it) ever learned, or their other sources.
func TestDeletingATurnReadsOnlyWhatWasLearnedFromIt(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	store := &readCountingStore{DB: db}
	svc := newServiceOn(t, store, db.Bridge())
	conv := core.NewConversationID()
	var users []core.Document
	for i := range 10 {
		var pair []core.Document
		for j, role := range []string{"user", "assistant"} {
			n := 2*i + j
			text := fmt.Sprintf("turn %d of the talk", n)
			pair = append(pair, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: core.Metadata{
				Type: core.DocTurn, Source: core.SourceChat, Scope: core.ScopeGlobal, Timestamp: time.Now(), ConversationID: conv, Role: role, TurnIndex: &n}})
		}
		if err := db.Put(ctx, pair...); err != nil {
			t.Fatal(err)
		}
		_, err := svc.CreateMemory(ctx, core.MemoryInput{Text: fmt.Sprintf("fact number %d learned in the talk", i), ConversationID: conv,
			SourceIDs: []string{pair[0].ID, pair[1].ID}})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, pair[0])
	}
	store.gets = 0
	if _, err := svc.DeleteTurns(ctx, conv, []string{users[0].ID}, ""); err != nil {
		t.Fatal(err)
	}
	// The turn itself.
	if store.gets > 1 {
		t.Errorf("deleting one turn read %d documents one by one, want 1 (the turn)", store.gets)
	}
}

// forgetRecorder is a ForgetListener that keeps the ids it is told of.
type forgetRecorder struct{ ids []string }

func (r *forgetRecorder) DocumentsForgotten(_ context.Context, ids []string) error {
	r.ids = append(r.ids, ids...)
	return nil
}
func (r *forgetRecorder) PersonForgotten(context.Context, string, string, time.Time) error {
	return nil
}
func (r *forgetRecorder) RoomForgotten(context.Context, string) error { return nil }

// TestRetentionTellsOfTheMemoriesItsCascadeTook: a retention sweep that
// deletes the last turn a recent automatic memory was learned from takes
// the memory with it (the store's cascade), and the listener hears of the
// memory too, not only of the turn retention matched, without core
// reading the documents it deletes to list them (the store says).
func TestRetentionTellsOfTheMemoriesItsCascadeTook(t *testing.T) {
	ctx := context.Background()
	db, heard := openDB(t), &forgetRecorder{}
	store := &readCountingStore{DB: db}
	svc := newServiceOn(t, store, heard)
	const room = "!r:example.org"
	conv, old, zero := core.NewConversationID(), time.Now().AddDate(0, 0, -40), 0
	turn := core.Document{ID: core.NewDocID(), Text: "my locker code is 4417", Embedding: embed.HashVector("my locker code is 4417"),
		Meta: core.Metadata{Type: core.DocTurn, Source: core.SourceChat, Scope: core.ScopeGlobal, Timestamp: old,
			ConversationID: conv, RoomID: room, Role: "user", TurnIndex: &zero}}
	if err := db.Put(ctx, turn); err != nil {
		t.Fatal(err)
	}
	m, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "The locker code is 4417", Entity: room, RoomID: room,
		ConversationID: conv, SourceIDs: []string{turn.ID}})
	if err != nil {
		t.Fatal(err)
	}
	store.gets = 0
	if _, err := svc.SweepRetention(ctx, time.Now().AddDate(0, 0, -30)); err != nil {
		t.Fatal(err)
	}
	gets := store.gets
	if _, err := svc.GetMemory(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the memory learned only from the swept turn stays: %v", err)
	}
	if !slices.Contains(heard.ids, turn.ID) || !slices.Contains(heard.ids, m.ID) {
		t.Errorf("the listener heard of %v, want the swept turn %s and the memory its deletion took, %s", heard.ids, turn.ID, m.ID)
	}
	if store.olderLists != 0 || gets != 0 {
		t.Errorf("the sweep listed what it deletes %d times and read %d documents one by one, want neither", store.olderLists, gets)
	}
}
