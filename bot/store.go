package bot

import (
	"context"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// StateStore is the bridge's own state: bot facts, per-room settings, the
// rooms' recent messages and the links from room events to what Ada stored
// because of them. *storage.Bridge implements it, with the queries beside
// their schema.
type StateStore interface {
	State(ctx context.Context, key string) (string, error)
	SetState(ctx context.Context, key, value string) error
	Room(ctx context.Context, roomID, newConversation string, at time.Time) (storage.BridgeRoom, error)
	SetStorage(ctx context.Context, roomID string, enabled bool, at time.Time) error
	SetConversation(ctx context.Context, roomID, conversationID string, at time.Time) error
	ClaimIntro(ctx context.Context, roomID string, at time.Time) (bool, error)
	AddMessage(ctx context.Context, roomID string, m storage.BridgeMessage, keep int) error
	RecentMessages(ctx context.Context, roomID string, limit int) ([]storage.BridgeMessage, error)
	ClearMessages(ctx context.Context, roomID string) error
	DeleteMessage(ctx context.Context, roomID, eventID string) error
	DeleteMessagesBefore(ctx context.Context, cutoff time.Time) (int, error)
	AddLinks(ctx context.Context, roomID string, links []storage.BridgeLink, at time.Time) error
	LinksOf(ctx context.Context, roomID, eventID string) ([]storage.BridgeLink, error)
	UnlinkDoc(ctx context.Context, roomID, docID string) error
	UnlinkKind(ctx context.Context, roomID, kind string) error
	DeleteLinksBefore(ctx context.Context, cutoff time.Time) error
}

// store speaks the bot's types (Matrix ids, the bot's clock) to the
// StateStore.
type store struct {
	db  StateStore
	now func() time.Time
}

// Keys of bridge_state.
const (
	stateDeviceID  = "device_id"
	statePickleKey = "pickle_key"
)

func (s *store) state(ctx context.Context, key string) (string, error) { return s.db.State(ctx, key) }

func (s *store) setState(ctx context.Context, key, value string) error {
	return s.db.SetState(ctx, key, value)
}

// roomSettings are a room's settings.
type roomSettings struct {
	RoomID         id.RoomID
	ConversationID string
	StorageEnabled bool // false = privacy mode
	IntroSent      bool
}

// room returns the room's settings, creating them (storage on, a new
// conversation) the first time the room is seen.
func (s *store) room(ctx context.Context, roomID id.RoomID) (roomSettings, error) {
	r, err := s.db.Room(ctx, roomID.String(), core.NewConversationID(), s.now())
	return roomSettings{RoomID: id.RoomID(r.RoomID), ConversationID: r.ConversationID,
		StorageEnabled: r.StorageEnabled, IntroSent: r.IntroSent}, err
}

func (s *store) setStorage(ctx context.Context, roomID id.RoomID, enabled bool) error {
	if _, err := s.room(ctx, roomID); err != nil {
		return err
	}
	return s.db.SetStorage(ctx, roomID.String(), enabled, s.now())
}

// newConversation gives the room a fresh conversation id (!ada clear).
func (s *store) newConversation(ctx context.Context, roomID id.RoomID) (string, error) {
	if _, err := s.room(ctx, roomID); err != nil {
		return "", err
	}
	conv := core.NewConversationID()
	return conv, s.db.SetConversation(ctx, roomID.String(), conv, s.now())
}

// claimIntro marks the introduction as sent and reports whether this call
// did it, so two deliveries of one invite, or a restart, send it once.
func (s *store) claimIntro(ctx context.Context, roomID id.RoomID) (bool, error) {
	if _, err := s.room(ctx, roomID); err != nil {
		return false, err
	}
	return s.db.ClaimIntro(ctx, roomID.String(), s.now())
}

// roomMessage is one room message: text, user id, time. Nothing else about
// a member is ever stored.
type roomMessage struct {
	EventID id.EventID
	Sender  id.UserID
	Text    string
	Time    time.Time
}

// addMessage stores m and trims the room to its newest keep messages.
func (s *store) addMessage(ctx context.Context, roomID id.RoomID, m roomMessage, keep int) error {
	return s.db.AddMessage(ctx, roomID.String(), storage.BridgeMessage{EventID: m.EventID.String(),
		Sender: m.Sender.String(), Text: m.Text, Time: m.Time}, keep)
}

// recentMessages returns up to limit newest messages, oldest first.
func (s *store) recentMessages(ctx context.Context, roomID id.RoomID, limit int) ([]roomMessage, error) {
	msgs, err := s.db.RecentMessages(ctx, roomID.String(), limit)
	out := make([]roomMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, roomMessage{EventID: id.EventID(m.EventID), Sender: id.UserID(m.Sender), Text: m.Text, Time: m.Time})
	}
	return out, err
}

func (s *store) clearMessages(ctx context.Context, roomID id.RoomID) error {
	return s.db.ClearMessages(ctx, roomID.String())
}

// deleteMessage removes one stored room message (a redaction).
func (s *store) deleteMessage(ctx context.Context, room id.RoomID, evt id.EventID) error {
	return s.db.DeleteMessage(ctx, room.String(), evt.String())
}

// deleteMessagesBefore removes every stored room message older than cutoff.
func (s *store) deleteMessagesBefore(ctx context.Context, cutoff time.Time) (int, error) {
	return s.db.DeleteMessagesBefore(ctx, cutoff)
}
