package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestWebSessionsKept (issue 40 item 5, migration 0018): a member's page
// session is kept over a reopening of the database by its id's hash only;
// its last use is updated; it goes when dropped, when the member's sessions
// are ended, and a day past its expiry.
func TestWebSessionsKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(time.Now().UnixMilli())
	const id, other, alice = "session-id-of-alice-0123456789abcdef", "session-id-of-bob", "@alice:example.org"
	s := WebSession{UserID: alice, Epoch: "e1", Expires: now.Add(12 * time.Hour), Seen: now}
	if err := db.Bridge().KeepWebSession(ctx, id, s, now); err != nil {
		t.Fatal(err)
	}
	if err := db.Bridge().KeepWebSession(ctx, other, WebSession{UserID: "@bob:example.org", Expires: now.Add(time.Hour), Seen: now}, now); err != nil {
		t.Fatal(err)
	}
	later := WebSession{UserID: "@mallory:example.org", Epoch: "e2", Expires: now.Add(99 * time.Hour), Seen: now.Add(time.Minute)}
	if err := db.Bridge().KeepWebSession(ctx, id, later, now); err != nil { // a known id: only its last use changes
		t.Fatal(err)
	}
	db.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "ada.db*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(id)) {
			t.Errorf("%s holds a raw session id", filepath.Base(f))
		}
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Bridge().KeptWebSession(ctx, id)
	want := WebSession{UserID: alice, Epoch: "e1", Expires: s.Expires, Seen: now.Add(time.Minute)}
	if err != nil || got.UserID != want.UserID || got.Epoch != want.Epoch || !got.Expires.Equal(want.Expires) || !got.Seen.Equal(want.Seen) {
		t.Fatalf("kept session: %+v, %v; want %+v", got, err, want)
	}
	if err := db.Bridge().EndWebSessions(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bridge().KeptWebSession(ctx, id); core.KindOf(err) != core.KindNotFound {
		t.Errorf("alice's session after her sessions were ended: %v", err)
	}
	if _, err := db.Bridge().KeptWebSession(ctx, other); err != nil {
		t.Errorf("bob's session went with alice's: %v", err)
	}
	// A day past its expiry, a row goes at the next write.
	if err := db.Bridge().KeepWebSession(ctx, "x", s, now.Add(time.Hour+webSessionGrace)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bridge().KeptWebSession(ctx, other); core.KindOf(err) != core.KindNotFound {
		t.Errorf("bob's session a day past its expiry: %v", err)
	}
	if err := db.Bridge().DropWebSession(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bridge().KeptWebSession(ctx, "x"); core.KindOf(err) != core.KindNotFound {
		t.Errorf("a dropped session: %v", err)
	}
}
