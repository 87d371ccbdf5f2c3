package bot

import (
	"context"
	"fmt"
	"log/slog"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// matrix is the bottom of the bridge as the room handlers see it: sending
// (encrypted where the room is), reactions and the room state the sends
// depend on (matrix_send.go). It decides nothing.
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

// prepareRoom fetches the room's state (encryption, power levels) and its
// members once per process. Sends wait for it: the bot must know whether a
// room is encrypted before its first message there, and whom to share the
// encryption session with. Later changes arrive through /sync.
func (mx *matrix) prepareRoom(ctx context.Context, room id.RoomID) error {
	rt := mx.rooms.get(room)
	if rt.prepared {
		return nil
	}
	if _, err := mx.cli.State(ctx, room); err != nil {
		return fmt.Errorf("read the room's state: %w", err)
	}
	if _, err := mx.cli.Members(ctx, room); err != nil {
		return fmt.Errorf("read the room's members: %w", err)
	}
	if err := mx.cli.StateStore.MarkMembersFetched(ctx, room); err != nil {
		return err
	}
	rt.prepared = true
	return nil
}

// joinedMembers lists the room's joined members from the state store.
func (mx *matrix) joinedMembers(ctx context.Context, room id.RoomID) ([]id.UserID, error) {
	if err := mx.prepareRoom(ctx, room); err != nil {
		return nil, err
	}
	all, err := mx.cli.StateStore.GetAllMembers(ctx, room)
	if err != nil {
		return nil, err
	}
	var out []id.UserID
	for user, m := range all {
		if m != nil && m.Membership == event.MembershipJoin {
			out = append(out, user)
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

// displayName is a member's name in the room, for context lines.
func (mx *matrix) displayName(ctx context.Context, room id.RoomID, user id.UserID) string {
	if user == mx.cli.UserID {
		return mx.name
	}
	if m, err := mx.cli.StateStore.TryGetMember(ctx, room, user); err == nil && m != nil && m.Displayname != "" {
		return m.Displayname
	}
	return user.Localpart()
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
