package bot

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/internal/dendritetest"
)

// member is a room member played by a real mautrix client that syncs in the
// background, optionally with its own end-to-end encryption.
type member struct {
	t      testing.TB
	cli    *mautrix.Client
	crypto *cryptohelper.CryptoHelper

	mu      sync.Mutex
	events  []*event.Event // as handlers saw them: decrypted, in arrival order
	raw     []rawEvent     // every timeline event as /sync delivered it
	arrival map[id.EventID]time.Time
	changed chan struct{}
}

// rawEvent is a timeline event before decryption.
type rawEvent struct {
	room   id.RoomID
	sender id.UserID
	typ    string
	id     id.EventID
}

func newMember(t testing.TB, hs *dendritetest.Server, localpart string, e2ee bool) *member {
	t.Helper()
	m := &member{t: t, cli: hs.Client(t, localpart), arrival: map[id.EventID]time.Time{}, changed: make(chan struct{})}
	syncer := m.cli.Syncer.(*mautrix.DefaultSyncer)
	syncer.OnSync(m.recordRaw)
	if e2ee {
		helper, err := cryptohelper.NewCryptoHelper(m.cli, []byte("member pickle key"), filepath.Join(t.TempDir(), localpart+"-crypto.db"))
		if err != nil {
			t.Fatalf("crypto helper for %s: %v", localpart, err)
		}
		if err := helper.Init(context.Background()); err != nil {
			t.Fatalf("crypto init for %s: %v", localpart, err)
		}
		m.cli.Crypto, m.crypto = helper, helper
	}
	for _, typ := range []event.Type{event.EventMessage, event.EventReaction, event.StateMember} {
		syncer.OnEventType(typ, m.record)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.cli.SyncWithContext(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("%s: sync stopped: %v", localpart, err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if m.crypto != nil {
			_ = m.crypto.Close()
		}
	})
	return m
}

func (m *member) recordRaw(_ context.Context, resp *mautrix.RespSync, _ string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for room, data := range resp.Rooms.Join {
		for _, evt := range data.Timeline.Events {
			m.raw = append(m.raw, rawEvent{room: room, sender: evt.Sender, typ: evt.Type.Type, id: evt.ID})
		}
	}
	return true
}

func (m *member) record(_ context.Context, evt *event.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, evt)
	if _, seen := m.arrival[evt.ID]; !seen {
		m.arrival[evt.ID] = time.Now()
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// wait returns the first recorded event matching pred, failing the test
// after testTimeout.
func (m *member) wait(what string, pred func(*event.Event) bool) *event.Event {
	m.t.Helper()
	deadline := time.After(testTimeout)
	for {
		m.mu.Lock()
		for _, evt := range m.events {
			if pred(evt) {
				m.mu.Unlock()
				return evt
			}
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			m.t.Fatalf("%s: timed out waiting for %s", m.cli.UserID, what)
			return nil
		}
	}
}

// find returns the recorded events matching pred, in arrival order.
func (m *member) find(pred func(*event.Event) bool) []*event.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*event.Event
	for _, evt := range m.events {
		if pred(evt) {
			out = append(out, evt)
		}
	}
	return out
}

// rawFrom lists the raw timeline events of sender in room.
func (m *member) rawFrom(room id.RoomID, sender id.UserID) []rawEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []rawEvent
	for _, r := range m.raw {
		if r.room == room && r.sender == sender {
			out = append(out, r)
		}
	}
	return out
}

func (m *member) arrivedAt(evID id.EventID) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.arrival[evID]
}

// send posts a message (encrypted by the member's client in encrypted rooms).
func (m *member) send(room id.RoomID, content *event.MessageEventContent) id.EventID {
	m.t.Helper()
	resp, err := m.cli.SendMessageEvent(context.Background(), room, event.EventMessage, content)
	if err != nil {
		m.t.Fatalf("%s: send to %s: %v", m.cli.UserID, room, err)
	}
	return resp.EventID
}

func (m *member) say(room id.RoomID, text string) id.EventID {
	m.t.Helper()
	return m.send(room, &event.MessageEventContent{MsgType: event.MsgText, Body: text})
}

// createRoom creates a room with the given members invited (the bot among
// them) and returns its id.
func (m *member) createRoom(req *mautrix.ReqCreateRoom) id.RoomID {
	m.t.Helper()
	if req.Preset == "" {
		req.Preset = "private_chat"
	}
	resp, err := m.cli.CreateRoom(context.Background(), req)
	if err != nil {
		m.t.Fatalf("%s: create room: %v", m.cli.UserID, err)
	}
	return resp.RoomID
}

func (m *member) join(room id.RoomID) {
	m.t.Helper()
	// The invite reaches the homeserver's join path asynchronously; retry briefly.
	var err error
	for i := 0; i < 50; i++ {
		if _, err = m.cli.JoinRoomByID(context.Background(), room); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatalf("%s: join %s: %v", m.cli.UserID, room, err)
}

// encryptedRoom is the initial state that turns on Megolm encryption.
func encryptedRoom() []*event.Event {
	return []*event.Event{{
		Type:    event.StateEncryption,
		Content: event.Content{Parsed: &event.EncryptionEventContent{Algorithm: id.AlgorithmMegolmV1}},
	}}
}

// Predicates over recorded events.

func membershipOf(room id.RoomID, user id.UserID, ms event.Membership) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.RoomID == room && evt.Type == event.StateMember && evt.GetStateKey() == user.String() &&
			evt.Content.AsMember().Membership == ms
	}
}

func reactionTo(target id.EventID, key string) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventReaction {
			return false
		}
		rel := evt.Content.AsReaction().RelatesTo
		return rel.EventID == target && rel.Key == key
	}
}

func anyReactionTo(target id.EventID) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.Type == event.EventReaction && evt.Content.AsReaction().RelatesTo.EventID == target
	}
}

// replyTo matches a message from sender that replies to target, of msgtype.
func replyTo(sender id.UserID, target id.EventID, msgType event.MessageType) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventMessage || evt.Sender != sender {
			return false
		}
		c := evt.Content.AsMessage()
		return c.MsgType == msgType && c.RelatesTo.GetReplyTo() == target
	}
}

// messageFrom matches any message of msgType from sender in room.
func messageFrom(room id.RoomID, sender id.UserID, msgType event.MessageType) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.RoomID == room && evt.Type == event.EventMessage && evt.Sender == sender &&
			evt.Content.AsMessage().MsgType == msgType
	}
}

func indexOf(events []*event.Event, pred func(*event.Event) bool) int {
	for i, e := range events {
		if pred(e) {
			return i
		}
	}
	return -1
}

func describe(evt *event.Event) string {
	if evt == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s %s from %s: %v", evt.Type.Type, evt.ID, evt.Sender, evt.Content.Raw)
}
