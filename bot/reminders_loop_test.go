package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

// fakePoster records what the reminders post; err, when set, fails the
// next send; failRoom fails every send to its room with a non-permanent
// error, as a room that refuses posts for a while (tries counts them).
type fakePoster struct {
	mu       sync.Mutex
	sent     []*event.MessageEventContent
	err      error
	failRoom id.RoomID
	tries    int
}

func (p *fakePoster) sendContent(_ context.Context, room id.RoomID, c *event.MessageEventContent) (id.EventID, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if room == p.failRoom {
		p.tries++
		return "", mautrix.MLimitExceeded
	}
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

// newTestReminders gives reminders on a real database, posting through
// poster, allowing limit pending per member and per room, on a clock the
// test sets (at start until then).
func newTestReminders(t *testing.T, poster roomPoster, limit int) (db *storage.DB, r *reminders, start time.Time, setClock func(time.Time)) {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	start = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := start
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setClock = func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	opts := Options{StoreInRAG: true, Reminders: ReminderOptions{MemberPending: limit, RoomPending: limit}}
	r = newReminders(opts, db.Bridge(), newRoomSettings(opts, db.Bridge(), slog.New(slog.DiscardHandler)), poster,
		clock, slog.New(slog.DiscardHandler))
	return db, r, start, setClock
}

// TestRemindersPostDue walks the timer's steps on a clock the test moves:
// nothing before its time and the wait until it; due ones posted, as
// replies with a pill for `me`, and deleted; a failed post kept and tried
// again soon; a room the bot cannot post in dropping its reminder; one due
// before the start marked late.
func TestRemindersPostDue(t *testing.T) {
	ctx := context.Background()
	poster := &fakePoster{}
	db, r, start, setClock := newTestReminders(t, poster, 5)
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

	// A failed post stays and is tried again after reminderRetry (not
	// before, though the loop wakes); then it goes through.
	setClock(start.Add(5 * time.Second))
	poster.err = errors.New("homeserver away")
	if wait := r.postDue(ctx, start); wait != reminderRetry || len(poster.sent) != 1 {
		t.Fatalf("a failed post: wait %s, %d posted", wait, len(poster.sent))
	}
	setClock(start.Add(5*time.Second + reminderRetry - time.Second))
	if wait := r.postDue(ctx, start); wait != time.Second || len(poster.sent) != 1 {
		t.Fatalf("before its retry: wait %s, %d posted; want 1s, 1", wait, len(poster.sent))
	}
	setClock(start.Add(5*time.Second + reminderRetry))
	if wait := r.postDue(ctx, start); wait != reminderIdle || len(poster.sent) != 2 || len(poster.sent[1].Mentions.UserIDs) != 0 ||
		!strings.HasPrefix(poster.sent[1].Body, "⏰ Reminder for the room (from alice): standup") {
		t.Fatalf("the retry: wait %s, sent %+v", wait, poster.sent)
	}
	start = start.Add(reminderRetry) // the steps below as if the retry took no time

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
	if last := poster.sent[len(poster.sent)-1]; !strings.Contains(last.Body, "feed the cat") || !strings.Contains(last.Body, "Late: this was due today at 12:00:22 (UTC)") {
		t.Errorf("the missed reminder: %q", last.Body)
	}
}

// TestRemindersFailingRoomDoesNotBlock: reminders that keep failing to
// post (a room refusing posts for a while), more than a page of them and
// due first, neither hold up a reminder of another room due after them
// nor are tried again at every wake: each waits reminderRetry, then twice
// as long, and goes once its room takes posts again.
func TestRemindersFailingRoomDoesNotBlock(t *testing.T) {
	ctx := context.Background()
	poster := &fakePoster{failRoom: "!stuck:x"}
	db, r, start, setClock := newTestReminders(t, poster, 50)
	add := func(room, text string, due time.Time) {
		t.Helper()
		if _, err := db.Bridge().AddReminder(ctx, storage.BridgeReminder{RoomID: room, Member: "@alice:x", Text: text,
			Due: due, EventID: "$ask-" + text, Created: start.Add(-time.Hour)}, 50, 50); err != nil {
			t.Fatal(err)
		}
	}
	stuck := reminderBatch + 5
	for i := range stuck {
		add("!stuck:x", fmt.Sprintf("stuck %d", i), start.Add(-time.Minute+time.Duration(i)*time.Millisecond))
	}
	add("!ok:x", "water the plants", start)

	if wait := r.postDue(ctx, start); wait != reminderRetry || poster.tries != stuck || len(poster.sent) != 1 ||
		!strings.Contains(poster.sent[0].Body, "water the plants") {
		t.Fatalf("first pass: wait %s, %d tries in the stuck room, %d posted elsewhere; want %s, %d, 1 (the other room's)",
			wait, poster.tries, len(poster.sent), reminderRetry, stuck)
	}
	// A wake before the retry (a reminder set) tries none of them again.
	if wait := r.postDue(ctx, start); wait != reminderRetry || poster.tries != stuck {
		t.Fatalf("a wake before the retry: wait %s, %d tries; want %s, %d", wait, poster.tries, reminderRetry, stuck)
	}
	// At the retry each is tried once more and waits twice as long; a
	// reminder due sooner than that is waited for.
	setClock(start.Add(reminderRetry))
	add("!ok:x", "stand up", start.Add(reminderRetry+time.Second))
	if wait := r.postDue(ctx, start); wait != time.Second || poster.tries != 2*stuck {
		t.Fatalf("the retry: wait %s, %d tries; want 1s, %d", wait, poster.tries, 2*stuck)
	}
	setClock(start.Add(reminderRetry + time.Second))
	if wait := r.postDue(ctx, start); wait != 2*reminderRetry-time.Second || poster.tries != 2*stuck || len(poster.sent) != 2 {
		t.Fatalf("the next due: wait %s, %d tries, %d posted; want %s, %d, 2", wait, poster.tries, len(poster.sent),
			2*reminderRetry-time.Second, 2*stuck)
	}
	// The room takes posts again: at their retry all go.
	poster.mu.Lock()
	poster.failRoom = ""
	poster.mu.Unlock()
	setClock(start.Add(3 * reminderRetry))
	if wait := r.postDue(ctx, start); wait != reminderIdle || len(poster.sent) != 2+stuck {
		t.Fatalf("after the room came back: wait %s, %d posted; want %s, %d", wait, len(poster.sent), reminderIdle, 2+stuck)
	}
	if rs, err := db.Bridge().RoomReminders(ctx, "!stuck:x"); err != nil || len(rs) != 0 {
		t.Fatalf("the stuck room's reminders after posting: %+v, %v", rs, err)
	}
}

// TestReminderPostWaitsForItsRoom: a due reminder is posted as one of its
// room's jobs, so a job running in the room when it falls due ends first:
// here one doing what `!ada forget me` does to the member's reminders, and
// the reminder it cancelled is not posted (posted beside it, it quoted a
// forgotten member's words, and its link came after the forgetting looked
// for the replies to take back).
func TestReminderPostWaitsForItsRoom(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	poster := &fakePoster{}
	db, r, start, _ := newTestReminders(t, poster, 5)
	work := &roomqueue.Work{}
	q := roomqueue.New(ctx, 2, slog.New(slog.DiscardHandler), work)
	t.Cleanup(q.Close)
	r.queue = q
	if _, err := db.Bridge().AddReminder(ctx, storage.BridgeReminder{RoomID: "!a:x", Member: "@alice:x", Mention: true,
		Text: "call the clinic", Due: start, EventID: "$ask", Created: start.Add(-time.Hour)}, 5, 5); err != nil {
		t.Fatal(err)
	}
	running, release := make(chan struct{}), make(chan struct{})
	q.Enqueue("!a:x", roomqueue.Job{Name: "forget me", Run: func(ctx context.Context) error {
		close(running)
		<-release
		_, err := r.forgetMember(ctx, "!a:x", "@alice:x")
		return err
	}})
	<-running
	r.postDue(ctx, start)
	close(release)
	if err := work.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	poster.mu.Lock()
	sent := len(poster.sent)
	poster.mu.Unlock()
	if sent != 0 {
		t.Fatalf("%d reminders posted beside the room's job that cancelled them; want none", sent)
	}
	if wait := r.postDue(ctx, start); wait != reminderIdle {
		t.Fatalf("after the cancelled post: wait %s; want %s (nothing pending)", wait, reminderIdle)
	}
}
