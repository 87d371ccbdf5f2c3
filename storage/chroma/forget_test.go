package chroma

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestDeleteManyForgetsTogether: a deletion of many memories blanks their
// histories' words in requests of many memories each, not a few requests
// per memory (forgetting a person, retention's sweep of a room).
func TestDeleteManyForgetsTogether(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "forgetmany")
	const n = 30
	now := time.Now().UTC()
	var c core.Change
	for range n {
		d := testMemory("Sam's locker code is 4417", now)
		d.Meta.RoomID = "!r:x"
		c.Put = append(c.Put, d)
		c.History = append(c.History, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryCreate, Time: now, Text: d.Text, Meta: d.Meta})
	}
	if _, err := s.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	log := &requestLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	gone, err := s.DeleteWhere(ctx, core.Filter{RoomID: "!r:x"})
	if err != nil || len(gone.IDs) != n {
		t.Fatalf("deleted %d (%v), want %d", len(gone.IDs), err, n)
	}
	if paths := log.take(); len(paths) >= n {
		t.Errorf("deleting %d memories sent %d requests: %v", n, len(paths), paths)
	}
	for _, d := range c.Put {
		h, err := s.History(ctx, d.ID)
		if err != nil || len(h) != 2 || h[0].Text != "" || h[1].Event != core.HistoryDelete {
			t.Fatalf("history of a deleted memory = %+v, %v; want its words blanked", h, err)
		}
	}
}
