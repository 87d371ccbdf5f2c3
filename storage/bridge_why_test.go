package storage

import (
	"context"
	"testing"
	"time"
)

// TestWhyGoesWithWhatItQuotes: the room's last answer is kept, replaced by
// the next, and deleted when what it quotes goes, or with the room's data.
func TestWhyGoesWithWhatItQuotes(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	room, now := "!r:example.org", time.Now()
	save := func(q string) {
		t.Helper()
		if err := b.SaveWhy(ctx, room, BridgeWhy{QuestionEvent: q, ReplyEvent: q + "-reply", DocIDs: []string{"doc-m1", "doc-t1"}, Body: []byte(`{}`), At: now}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() bool {
		t.Helper()
		_, ok, err := b.LoadWhy(ctx, room)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	save("$q1")
	save("$q2")
	if w, ok, _ := b.LoadWhy(ctx, room); !ok || w.QuestionEvent != "$q2" || len(w.DocIDs) != 2 {
		t.Fatalf("the next answer replaces the last: %+v %v", w, ok)
	}
	for _, drop := range []struct {
		event string
		docs  []string
	}{{"$q1", nil}, {"$other", []string{"doc-x"}}} {
		if err := b.DropWhy(ctx, room, drop.event, drop.docs...); err != nil || !kept() {
			t.Errorf("dropping %v took an answer that does not quote it (%v)", drop, err)
		}
	}
	for _, drop := range []struct {
		event string
		docs  []string
	}{{"$q2", nil}, {"$q2-reply", nil}, {"", []string{"doc-t1"}}, {"", nil}} {
		save("$q2")
		if err := b.DropWhy(ctx, room, drop.event, drop.docs...); err != nil || kept() {
			t.Errorf("dropping %v should take the answer that quotes it (%v)", drop, err)
		}
	}
	save("$q3")
	if err := b.PurgeRoom(ctx, room); err != nil || kept() {
		t.Errorf("a purge takes the room's last answer (%v)", err)
	}
}
