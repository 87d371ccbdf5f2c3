// Package bottest has helpers for end-to-end tests of the Matrix bridge
// against a real homeserver: room members played by real mautrix clients
// (with their own end-to-end encryption), and predicates over the events
// they receive. The bot's tests and cmd/ada's use it; it does not import bot.
package bottest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Member is a room member played by a real mautrix client that syncs in the
// background, optionally with its own end-to-end encryption.
type Member struct {
	t      testing.TB
	Client *mautrix.Client
	Crypto *cryptohelper.CryptoHelper

	mu      sync.Mutex
	events  []*event.Event // as handlers saw them: decrypted, in arrival order
	raw     []RawEvent     // every timeline event as /sync delivered it
	arrival map[id.EventID]time.Time
	changed chan struct{}
}

// RawEvent is a timeline event before decryption.
type RawEvent struct {
	Room   id.RoomID
	Sender id.UserID
	Type   string
	ID     id.EventID
}

func NewMember(t testing.TB, hs *Homeserver, localpart string, e2ee bool) *Member {
	t.Helper()
	m := &Member{t: t, Client: hs.Client(t, localpart), arrival: map[id.EventID]time.Time{}, changed: make(chan struct{})}
	// Members retry a failed sync after a second, as real clients do, not
	// after mautrix's 10 s: a homeserver restart then costs a test seconds.
	syncer := &quickRetrySyncer{DefaultSyncer: mautrix.NewDefaultSyncer()}
	m.Client.Syncer = syncer
	syncer.OnSync(m.recordRaw)
	if e2ee {
		helper, err := cryptohelper.NewCryptoHelper(m.Client, []byte("member pickle key"), filepath.Join(t.TempDir(), localpart+"-crypto.db"))
		if err != nil {
			t.Fatalf("crypto helper for %s: %v", localpart, err)
		}
		if err := helper.Init(context.Background()); err != nil {
			t.Fatalf("crypto init for %s: %v", localpart, err)
		}
		// mautrix fills its cache of the account's cross-signing keys on
		// first use, unguarded, from the sync loop (decrypting) and from
		// Send (encrypting): a race the race detector caught when a
		// member's first send met its first decryption. Filled here, before
		// the sync starts, it is only read (a member has no cross-signing
		// keys, so nothing resets it).
		if _, err := helper.Machine().GetOwnCrossSigningPublicKeys(context.Background()); err != nil {
			t.Fatalf("cross-signing keys of %s: %v", localpart, err)
		}
		m.Client.Crypto, m.Crypto = helper, helper
	}
	for _, typ := range []event.Type{event.EventMessage, event.EventReaction, event.EventRedaction, event.StateMember, event.EphemeralEventTyping} {
		syncer.OnEventType(typ, m.record)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.Client.SyncWithContext(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("%s: sync stopped: %v", localpart, err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if m.Crypto != nil {
			_ = m.Crypto.Close()
		}
	})
	return m
}

func (m *Member) recordRaw(_ context.Context, resp *mautrix.RespSync, _ string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for room, data := range resp.Rooms.Join {
		for _, evt := range data.Timeline.Events {
			m.raw = append(m.raw, RawEvent{Room: room, Sender: evt.Sender, Type: evt.Type.Type, ID: evt.ID})
		}
	}
	return true
}

func (m *Member) record(_ context.Context, evt *event.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, evt)
	if _, seen := m.arrival[evt.ID]; !seen {
		m.arrival[evt.ID] = time.Now()
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// Wait returns the first recorded event matching pred, failing the test
// after Timeout.
func (m *Member) Wait(what string, pred func(*event.Event) bool) *event.Event {
	m.t.Helper()
	deadline := time.After(Timeout)
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
			m.t.Fatalf("%s: timed out waiting for %s", m.Client.UserID, what)
			return nil
		}
	}
}

// Find returns the recorded events matching pred, in arrival order.
func (m *Member) Find(pred func(*event.Event) bool) []*event.Event {
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

// RawFrom lists the raw timeline events of sender in room.
func (m *Member) RawFrom(room id.RoomID, sender id.UserID) []RawEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []RawEvent
	for _, r := range m.raw {
		if r.Room == room && r.Sender == sender {
			out = append(out, r)
		}
	}
	return out
}

func (m *Member) ArrivedAt(evID id.EventID) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.arrival[evID]
}

// Send posts a message (encrypted by the member's client in encrypted rooms).
func (m *Member) Send(room id.RoomID, content *event.MessageEventContent) id.EventID {
	m.t.Helper()
	resp, err := m.Client.SendMessageEvent(context.Background(), room, event.EventMessage, content)
	if err != nil {
		m.t.Fatalf("%s: send to %s: %v", m.Client.UserID, room, err)
	}
	return resp.EventID
}

// SendAt posts a message stamped at (the homeserver's origin_server_ts),
// through the client API's `ts` parameter, which Dendrite honours for any
// sender (the application-service timestamp massaging): messages "sent"
// on another day, for tests of what Ada does with times.
func (m *Member) SendAt(room id.RoomID, content *event.MessageEventContent, at time.Time) id.EventID {
	m.t.Helper()
	resp, err := m.Client.SendMessageEvent(context.Background(), room, event.EventMessage, content,
		mautrix.ReqSendEvent{Timestamp: at.UnixMilli()})
	if err != nil {
		m.t.Fatalf("%s: send to %s at %s: %v", m.Client.UserID, room, at, err)
	}
	return resp.EventID
}

func (m *Member) Say(room id.RoomID, text string) id.EventID {
	m.t.Helper()
	return m.Send(room, &event.MessageEventContent{MsgType: event.MsgText, Body: text})
}

// CreateRoom creates a room with the given members invited (the bot among
// them) and returns its id.
func (m *Member) CreateRoom(req *mautrix.ReqCreateRoom) id.RoomID {
	m.t.Helper()
	if req.Preset == "" {
		req.Preset = "private_chat"
	}
	resp, err := m.Client.CreateRoom(context.Background(), req)
	if err != nil {
		m.t.Fatalf("%s: create room: %v", m.Client.UserID, err)
	}
	return resp.RoomID
}

func (m *Member) Join(room id.RoomID) {
	m.t.Helper()
	// The invite reaches the homeserver's join path asynchronously; retry briefly.
	var err error
	for i := 0; i < 50; i++ {
		if _, err = m.Client.JoinRoomByID(context.Background(), room); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatalf("%s: join %s: %v", m.Client.UserID, room, err)
}

// EncryptedRoom is the initial state that turns on Megolm encryption.
func EncryptedRoom() []*event.Event {
	return []*event.Event{{
		Type:    event.StateEncryption,
		Content: event.Content{Parsed: &event.EncryptionEventContent{Algorithm: id.AlgorithmMegolmV1}},
	}}
}

// Predicates over recorded events.

func MembershipOf(room id.RoomID, user id.UserID, ms event.Membership) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.RoomID == room && evt.Type == event.StateMember && evt.GetStateKey() == user.String() &&
			evt.Content.AsMember().Membership == ms
	}
}

func ReactionTo(target id.EventID, key string) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventReaction {
			return false
		}
		rel := evt.Content.AsReaction().RelatesTo
		return rel.EventID == target && rel.Key == key
	}
}

// RedactionOf matches a redaction of target (in the content from room
// version 11, at the top level before).
func RedactionOf(target id.EventID) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventRedaction {
			return false
		}
		if c, ok := evt.Content.Parsed.(*event.RedactionEventContent); ok && c.Redacts == target {
			return true
		}
		return evt.Redacts == target
	}
}

// Typing matches a typing notification in room that lists user.
func Typing(room id.RoomID, user id.UserID) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.RoomID == room && evt.Type == event.EphemeralEventTyping &&
			slices.Contains(evt.Content.AsTyping().UserIDs, user)
	}
}

func AnyReactionTo(target id.EventID) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.Type == event.EventReaction && evt.Content.AsReaction().RelatesTo.EventID == target
	}
}

// ReplyTo matches a message from sender that replies to target, of msgtype.
func ReplyTo(sender id.UserID, target id.EventID, msgType event.MessageType) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventMessage || evt.Sender != sender {
			return false
		}
		c := evt.Content.AsMessage()
		return c.MsgType == msgType && c.RelatesTo.GetReplyTo() == target
	}
}

// MessageFrom matches any message of msgType from sender in room.
func MessageFrom(room id.RoomID, sender id.UserID, msgType event.MessageType) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		return evt.RoomID == room && evt.Type == event.EventMessage && evt.Sender == sender &&
			evt.Content.AsMessage().MsgType == msgType
	}
}

func IndexOf(events []*event.Event, pred func(*event.Event) bool) int {
	for i, e := range events {
		if pred(e) {
			return i
		}
	}
	return -1
}

func Describe(evt *event.Event) string {
	if evt == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s %s from %s: %v", evt.Type.Type, evt.ID, evt.Sender, evt.Content.Raw)
}

// Timeout bounds every wait on the homeserver.
const Timeout = 20 * time.Second

// quickRetrySyncer retries failed syncs after a second.
type quickRetrySyncer struct{ *mautrix.DefaultSyncer }

func (s *quickRetrySyncer) OnFailedSync(res *mautrix.RespSync, err error) (time.Duration, error) {
	if _, stop := s.DefaultSyncer.OnFailedSync(res, err); stop != nil {
		return 0, stop
	}
	return time.Second, nil
}
