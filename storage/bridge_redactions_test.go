package storage

import (
	"context"
	"testing"
	"time"
)

// TestRedactionsAreKeptUntilApplied: a recorded redaction stays due until
// it is applied, a failure puts it off, a message redacted before it was
// handled is not stored, and a link added to a redacted event makes its
// redaction due again.
func TestRedactionsAreKeptUntilApplied(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	room, now := "!r:example.org", time.Now()
	due := func(at time.Time) []BridgeRedaction {
		t.Helper()
		got, err := b.DueRedactions(ctx, at, 10)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := b.RecordRedaction(ctx, room, "$gone", now); err != nil {
		t.Fatal(err)
	}
	if got := due(now); len(got) != 1 || got[0].EventID != "$gone" || got[0].Attempts != 0 {
		t.Fatalf("a recorded redaction is due at once: %+v", got)
	}
	if err := b.RedactionFailed(ctx, room, "$gone", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := due(now); len(got) != 0 {
		t.Fatalf("a failed redaction waits for its retry: %+v", got)
	}
	if got := due(now.Add(time.Minute)); len(got) != 1 || got[0].Attempts != 1 {
		t.Fatalf("a failed redaction is due again later, with its attempts: %+v", got)
	}

	// Handled after its redaction: not stored.
	if err := b.AddMessage(ctx, room, BridgeMessage{EventID: "$gone", Sender: "@a:x", Text: "secret", Time: now}, 10); err != nil {
		t.Fatal(err)
	}
	if err := b.AddMessage(ctx, room, BridgeMessage{EventID: "$kept", Sender: "@a:x", Text: "hello", Time: now}, 10); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := b.RecentMessages(ctx, room, 10); len(msgs) != 1 || msgs[0].EventID != "$kept" {
		t.Errorf("a redacted message must not be stored: %+v", msgs)
	}

	if err := b.RedactionApplied(ctx, room, "$gone", now); err != nil {
		t.Fatal(err)
	}
	if got := due(now.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("an applied redaction is not due: %+v", got)
	}
	if red, err := b.Redacted(ctx, room, "$gone"); err != nil || !red {
		t.Errorf("an applied redaction is still known: %v %v", red, err)
	}
	if red, _ := b.Redacted(ctx, room, "$kept"); red {
		t.Errorf("a message never redacted is reported redacted")
	}

	// An answer linked to the redacted question afterwards: due again.
	if err := b.AddLinks(ctx, room, []BridgeLink{{EventID: "$gone", DocID: "doc-1", Kind: LinkTurn}}, now); err != nil {
		t.Fatal(err)
	}
	if got := due(now); len(got) != 1 || got[0].EventID != "$gone" {
		t.Fatalf("a link to a redacted event makes its redaction due again: %+v", got)
	}

	// Retention takes applied rows with the links, never pending ones.
	if err := b.RecordRedaction(ctx, room, "$old", now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := b.RedactionApplied(ctx, room, "$old", now); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteLinksBefore(ctx, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if red, _ := b.Redacted(ctx, room, "$old"); red {
		t.Errorf("retention keeps an applied redaction")
	}
	if red, _ := b.Redacted(ctx, room, "$gone"); !red {
		t.Errorf("retention deleted a pending redaction")
	}
}
