package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/format"
	"maunium.net/go/mautrix/id"
)

// matrix is the bottom of the bridge as the room handlers see it: sending
// (encrypted where the room is), reactions and the room state the sends
// depend on. It decides nothing.
type matrix struct {
	// cli and crypto are set by the login and the encryption set-up, runCtx
	// by Run: the handlers only run after them.
	cli    *mautrix.Client
	crypto *cryptohelper.CryptoHelper
	runCtx context.Context
	// gate serialises encryption with the sync loop's crypto work.
	gate  *cryptoGate
	rooms *roomStates
	// name is the bot's display name (BOT_DISPLAY_NAME).
	name string
	log  *slog.Logger
}

// prepareRoom reads the room's state (encryption, power levels, members)
// from the homeserver once per process. Sends wait for it: the bot must
// know whether a room is encrypted before its first message there, and
// whom to share the encryption session with. Later changes arrive through
// /sync.
func (mx *matrix) prepareRoom(ctx context.Context, room id.RoomID) error {
	rt := mx.rooms.get(room)
	if rt.prepared.Load() {
		return nil
	}
	var state []*event.Event
	if _, err := mx.cli.MakeRequest(ctx, http.MethodGet, mx.cli.BuildClientURL("v3", "rooms", room, "state"), nil, &state); err != nil {
		return fmt.Errorf("read the room's state: %w", err)
	}
	for _, evt := range state {
		if err := mx.learnState(ctx, room, evt); err != nil {
			return err
		}
	}
	if err := mx.cli.StateStore.MarkMembersFetched(ctx, room); err != nil {
		return err
	}
	rt.prepared.Store(true)
	return nil
}

// learnState puts one event of the homeserver's answer in the state store,
// except a membership the store already holds. /sync, and Ada's own
// createRoom and join, wrote that, and the answer may be older: Dendrite
// answers /state before it has processed the invites of a room just
// created, or a join that /sync has already delivered. (mautrix's State
// and Members replace every cached member with the answer: the first
// message of a new direct chat was then shared with Ada's devices only,
// and a room whose third member had just joined counted as a direct chat.)
// A stay's stale members are cleared before Ada joins (forgetMembers).
func (mx *matrix) learnState(ctx context.Context, room id.RoomID, evt *event.Event) error {
	evt.RoomID = room
	evt.Type.Class = event.StateEventType
	_ = evt.Content.ParseRaw(evt.Type) // a type mautrix does not know stays raw, as in its State
	if evt.Type == event.StateMember && evt.StateKey != nil {
		known, err := mx.cli.StateStore.TryGetMember(ctx, room, id.UserID(*evt.StateKey))
		if err != nil {
			return fmt.Errorf("read a member of the room: %w", err)
		}
		if known != nil {
			return nil
		}
	}
	mautrix.UpdateStateStore(ctx, mx.cli.StateStore, evt)
	return nil
}

// forgetMembers drops what the state store holds of the room's members
// before Ada joins it: it dates from an earlier stay (sync says nothing of
// a room Ada is not in), and learnState would keep it over the
// homeserver's answer.
func (mx *matrix) forgetMembers(ctx context.Context, room id.RoomID) error {
	return mx.cli.StateStore.ClearCachedMembers(ctx, room)
}

// joinedMembers lists the room's joined members from the state store.
func (mx *matrix) joinedMembers(ctx context.Context, room id.RoomID) ([]id.UserID, error) {
	joined, err := mx.joined(ctx, room)
	return slices.Collect(maps.Keys(joined)), err
}

// joined are the member events of the room's joined members, from the
// state store.
func (mx *matrix) joined(ctx context.Context, room id.RoomID) (map[id.UserID]*event.MemberEventContent, error) {
	if err := mx.prepareRoom(ctx, room); err != nil {
		return nil, err
	}
	all, err := mx.cli.StateStore.GetAllMembers(ctx, room)
	if err != nil {
		return nil, err
	}
	out := make(map[id.UserID]*event.MemberEventContent, len(all))
	for user, m := range all {
		if m != nil && m.Membership == event.MembershipJoin {
			out[user] = m
		}
	}
	return out, nil
}

// isDM reports a direct chat: the bot and exactly one other member.
func (mx *matrix) isDM(ctx context.Context, room id.RoomID) bool {
	members, err := mx.joinedMembers(ctx, room)
	if err != nil {
		logFrom(ctx, mx.log).Warn("could not count the room's members", "error", err)
		return false
	}
	return len(members) == 2
}

// displayName is a member's name in the room, for context lines: with
// the user id where another member goes by the same name (roster.go).
func (mx *matrix) displayName(ctx context.Context, room id.RoomID, user id.UserID) string {
	return mx.labelIn(ctx, mx.roster(ctx, room).Labels(), room, user)
}

// powerLevel is user's power level in the room.
func (mx *matrix) powerLevel(ctx context.Context, room id.RoomID, user id.UserID) (int, error) {
	if err := mx.prepareRoom(ctx, room); err != nil {
		return 0, err
	}
	pl, err := mx.cli.StateStore.GetPowerLevels(ctx, room)
	if err != nil {
		return 0, err
	}
	if pl == nil {
		pl = &event.PowerLevelsEventContent{}
		if err := mx.cli.StateEvent(ctx, room, event.StatePowerLevels, "", pl); err != nil {
			return 0, fmt.Errorf("read power levels: %w", err)
		}
	}
	return pl.GetUserLevel(user), nil
}

// sendContent sends one m.room.message. It learns the room's encryption state
// first and, in an encrypted room, sends only the Megolm-encrypted event: if
// encryption fails, nothing is sent, never plaintext.
func (mx *matrix) sendContent(ctx context.Context, room id.RoomID, content *event.MessageEventContent) (id.EventID, error) {
	return mx.sendEvent(ctx, room, event.EventMessage, content)
}

// sendEvent sends one event of type typ (a message, an edit, a reaction),
// encrypted where the room is, never in plaintext there.
func (mx *matrix) sendEvent(ctx context.Context, room id.RoomID, typ event.Type, content any) (id.EventID, error) {
	return mx.send(ctx, room, typ, content, false)
}

// sendSecret sends a message that must not be logged (a login link): in a
// room without encryption its body is left out of mautrix's request log,
// which writes request bodies at debug level.
func (mx *matrix) sendSecret(ctx context.Context, room id.RoomID, content *event.MessageEventContent) (id.EventID, error) {
	return mx.send(ctx, room, event.EventMessage, content, true)
}

func (mx *matrix) send(ctx context.Context, room id.RoomID, typ event.Type, content any, secret bool) (id.EventID, error) {
	if err := mx.prepareRoom(ctx, room); err != nil {
		return "", fmt.Errorf("not sending: %w", err)
	}
	encrypted, err := mx.cli.StateStore.IsEncrypted(ctx, room)
	if err != nil {
		return "", fmt.Errorf("not sending: cannot tell whether the room is encrypted: %w", err)
	}
	var resp *mautrix.RespSendEvent
	if encrypted {
		if mx.crypto == nil {
			return "", errors.New("not sending: the room is encrypted and encryption is not set up")
		}
		if err := mx.gate.lock(ctx); err != nil {
			return "", fmt.Errorf("not sending: %w", err)
		}
		enc, err := mx.crypto.Encrypt(ctx, room, typ, content)
		mx.gate.unlock()
		if err != nil {
			return "", fmt.Errorf("not sending: encryption failed: %w", err)
		}
		resp, err = mx.cli.SendMessageEvent(ctx, room, event.EventEncrypted, enc)
		if err != nil {
			return "", err
		}
	} else if secret {
		resp = &mautrix.RespSendEvent{}
		_, err = mx.cli.MakeFullRequest(ctx, mautrix.FullRequest{
			Method: http.MethodPut, URL: mx.cli.BuildClientURL("v3", "rooms", room, "send", typ.String(), mx.cli.TxnID()),
			RequestJSON: content, ResponseJSON: resp, SensitiveContent: true,
		})
		if err != nil {
			return "", err
		}
	} else {
		resp, err = mx.cli.SendMessageEvent(ctx, room, typ, content, mautrix.ReqSendEvent{DontEncrypt: true})
		if err != nil {
			return "", err
		}
	}
	return resp.EventID, nil
}

// notice renders Markdown written by the bot itself as an m.notice.
func notice(markdown string) *event.MessageEventContent {
	c := format.RenderMarkdown(markdown, true, false)
	c.MsgType = event.MsgNotice
	c.Mentions = &event.Mentions{}
	return &c
}

// sendNoticeTo posts a notice into a room, not as a reply (the intro).
func (mx *matrix) sendNoticeTo(ctx context.Context, room id.RoomID, markdown string) (id.EventID, error) {
	return mx.sendContent(ctx, room, notice(markdown))
}

// sendNotice posts a notice as a reply to evt (in its thread, if any),
// mentioning only evt's sender.
func (mx *matrix) sendNotice(ctx context.Context, evt *event.Event, markdown string) (id.EventID, error) {
	c := notice(markdown)
	relateTo(c, evt, true)
	c.Mentions = &event.Mentions{UserIDs: []id.UserID{evt.Sender}}
	return mx.sendContent(ctx, evt.RoomID, c)
}

// fail marks the message ❌ and says in plain words what went wrong. When
// the bot itself is stopping there is nobody to tell. It returns what it
// posted (empty ids for what failed or was not sent).
func (mx *matrix) fail(ctx context.Context, evt *event.Event, reason string) (reaction, notice id.EventID) {
	if mx.runCtx.Err() != nil {
		return "", ""
	}
	reaction = mx.react(ctx, evt.RoomID, evt.ID, reactFailed)
	notice, err := mx.sendNotice(ctx, evt, "⚠️ Sorry, I could not answer: "+reason)
	if err != nil {
		logFrom(ctx, mx.log).Error("could not post the failure notice", "error", err)
	}
	return reaction, notice
}

// stoppedNotice is posted on a question the bridge accepted and did not
// answer before it stopped.
const stoppedNotice = "⚠️ Sorry, I was restarted before I could answer this. Please ask again."

// failStopped marks a question ❌ and says that the bridge stopped before
// answering it. It runs while the bridge stops, with a context of its own.
// It returns what it posted, as fail does.
func (mx *matrix) failStopped(ctx context.Context, evt *event.Event) (reaction, notice id.EventID) {
	reaction = mx.react(ctx, evt.RoomID, evt.ID, reactFailed)
	notice, err := mx.sendNotice(ctx, evt, stoppedNotice)
	if err != nil {
		logFrom(ctx, mx.log).Error("could not tell the room that a question was not answered before the stop", "error", err)
	}
	return reaction, notice
}

// relateTo makes c a reply to evt, inside evt's thread when it was in one.
// Only the first part of a split reply is a reply; the rest follow in the
// thread, or in the room as a reference (m.reference) to the question.
func relateTo(c *event.MessageEventContent, evt *event.Event, first bool) {
	thread := threadRoot(evt)
	switch {
	case thread != "":
		c.RelatesTo = (&event.RelatesTo{}).SetThread(thread, evt.ID)
		if first {
			c.RelatesTo.SetReplyTo(evt.ID) // a real reply, not just the thread fallback
		}
	case first:
		c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(evt.ID)
	default:
		// A later part in the main timeline refers to the question, so
		// that it is no loose message (issue 40 item 10).
		c.RelatesTo = &event.RelatesTo{Type: event.RelReference, EventID: evt.ID}
	}
}

// redact redacts one of the bot's own events (a reply to a message that a
// member redacted or edited). Redactions are never encrypted.
func (mx *matrix) redact(ctx context.Context, room id.RoomID, evt id.EventID) error {
	_, err := mx.cli.RedactEvent(ctx, room, evt)
	return err
}

// Reactions show a message's state (SPEC.md: received → processing → done or
// failed), plus a sign on messages that could not be decrypted.
const (
	reactThinking      = "🧠"
	reactDone          = "✅"
	reactFailed        = "❌"
	reactUndecryptable = "🔒"
)

// react annotates an event. Reactions are best effort: a failure is logged
// and never stops the answer. In an encrypted room the reaction is
// encrypted too, as Element does (mautrix's SendReaction never encrypts):
// otherwise the server would see which messages Ada handled and whether she
// failed. The annotation relation stays readable to the server, as the
// Matrix spec wants, so that clients can still aggregate. It returns the
// reaction's event, empty when it failed.
func (mx *matrix) react(ctx context.Context, room id.RoomID, target id.EventID, key string) id.EventID {
	content := &event.ReactionEventContent{RelatesTo: event.RelatesTo{Type: event.RelAnnotation, EventID: target, Key: key}}
	evID, err := mx.sendEvent(ctx, room, event.EventReaction, content)
	if err != nil && ctx.Err() == nil {
		logFrom(ctx, mx.log).Warn("could not add a reaction", "reaction", key, "error", err)
	}
	return evID
}
