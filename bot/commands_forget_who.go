package bot

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Who may forget what (DECISIONS.md, forgetting): a member may forget the
// memories drawn from their own messages or made by their own `!ada
// remember` (the memory's user id is the member who told it, in both
// cases); room moderators may forget any memory of the room. Anyone else is
// refused, and the memory stays.

// Why a member's command deleted a memory, for its history.
const (
	forgetReason    = "a member asked Ada to forget it (!ada forget)"
	forgetAllReason = "a moderator asked Ada to forget all the room's memories (!ada forget all)"
)

// notYoursToForget is the refusal.
const notYoursToForget = "🚫 That memory came from another member. Only they or a room moderator (power level 50 or more) can make me forget it."

// mayForget reports whether the command's sender may forget m.
func (cs *commands) mayForget(ctx context.Context, c *commandEvent, m core.Memory) (bool, error) {
	if m.Meta.UserID != "" && m.Meta.UserID == c.evt.Sender.String() {
		return true, nil
	}
	level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
	if err != nil {
		return false, err
	}
	return level >= moderatorLevel, nil
}
