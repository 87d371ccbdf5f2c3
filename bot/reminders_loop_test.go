package bot

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

// fakePoster records what the reminders post; err, when set, fails the
// next send.
type fakePoster struct {
	mu   sync.Mutex
	sent []*event.MessageEventContent
	err  error
}

func (p *fakePoster) sendContent(_ context.Context, _ id.RoomID, c *event.MessageEventContent) (id.EventID, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.err; err != nil {
		p.err = nil
		return "", err
	}
	p.sent = append(p.sent, c)
	return "$posted", nil
}

func (p *fakePoster) displayName(_ context.Context, _ id.RoomID, user id.UserID) string {
	return strings.TrimPrefix(strings.SplitN(user.String(), ":", 2)[0], "@")
}

func (p *fakePoster) powerLevel(context.Context, id.RoomID, id.UserID) (int, error) { return 0, nil }

// TestRemindersPostDue walks the timer's steps on a clock the test moves:
// nothing before its time and the wait until it; due ones posted, as
// replies with a pill for `me`, and deleted; a failed post kept and tried
// again soon; a room the bot cannot post in dropping its reminder; one due
// before the start marked late.
func TestRemindersPostDue(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := start
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setClock := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	poster := &fakePoster{}
	r := newReminders(Options{StoreInRAG: true, Reminders: ReminderOptions{MemberPending: 5, RoomPending: 5}}, db.Bridge(), poster, clock,
		slog.New(slog.DiscardHandler))
	add := func(room string, mention bool, text string, due time.Time) {
		t.Helper()
		if _, err := db.Bridge().AddReminder(ctx, storage.BridgeReminder{RoomID: room, Member: "@alice:x", Mention: mention, Text: text,
			Due: due, EventID: "$ask-" + text, Created: start}, 5, 5); err != nil {
			t.Fatal(err)
		}
	}
	add("!a:x", true, "stretch", start.Add(time.Second))
	add("!a:x", false, "standup", start.Add(5*time.Second))

	if wait := r.postDue(ctx, start); wait != time.Second || len(poster.sent) != 0 {
		t.Fatalf("before its time: wait %s, %d posted; want 1s, none", wait, len(poster.sent))
	}
	setClock(start.Add(time.Second))
	if wait := r.postDue(ctx, start); wait != 4*time.Second || len(poster.sent) != 1 {
		t.Fatalf("at its time: wait %s, %d posted; want 4s, 1", wait, len(poster.sent))
	}
	c := poster.sent[0]
	if c.MsgType != event.MsgText || c.RelatesTo.GetReplyTo() != "$ask-stretch" || len(c.Mentions.UserIDs) != 1 ||
		!strings.Contains(c.FormattedBody, `<a href="https://matrix.to/#/@alice:x">alice</a>`) || strings.Contains(c.Body, "Late") {
		t.Errorf("the reminder %+v", c)
	}

	// A failed post stays and is tried again soon; then it goes through.
	setClock(start.Add(5 * time.Second))
	poster.err = errors.New("homeserver away")
	if wait := r.postDue(ctx, start); wait != reminderRetry || len(poster.sent) != 1 {
		t.Fatalf("a failed post: wait %s, %d posted", wait, len(poster.sent))
	}
	if wait := r.postDue(ctx, start); wait != reminderIdle || len(poster.sent) != 2 || len(poster.sent[1].Mentions.UserIDs) != 0 ||
		!strings.HasPrefix(poster.sent[1].Body, "⏰ Reminder for the room (from alice): standup") {
		t.Fatalf("the retry: wait %s, sent %+v", wait, poster.sent)
	}

	// A room the bot left: dropped, not retried.
	add("!gone:x", true, "lost", start.Add(6*time.Second))
	setClock(start.Add(6 * time.Second))
	poster.err = mautrix.MForbidden
	if wait := r.postDue(ctx, start); wait != reminderIdle {
		t.Fatalf("a forbidden room: wait %s", wait)
	}
	if rs, _ := db.Bridge().RoomReminders(ctx, "!gone:x"); len(rs) != 0 {
		t.Fatalf("the forbidden room's reminder was kept: %+v", rs)
	}

	// Due before this start (missed while down): late.
	add("!a:x", true, "feed the cat", start.Add(7*time.Second))
	setClock(start.Add(8 * time.Second))
	r.postDue(ctx, start.Add(8*time.Second))
	if last := poster.sent[len(poster.sent)-1]; !strings.Contains(last.Body, "feed the cat") || !strings.Contains(last.Body, "Late: this was due today at 12:00:07 (UTC)") {
		t.Errorf("the missed reminder: %q", last.Body)
	}
}
