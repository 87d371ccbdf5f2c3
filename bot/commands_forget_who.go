package bot

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Who may forget what is core's one rule (core/access.go, DECISIONS.md
// "Identities, walls and forgetting"): a member may forget what they told
// (the memories drawn from their messages or made by their `!ada
// remember`) and what is about them; room moderators (power level 50 or
// more) anything of the room. Anyone else is refused, and the memory stays.

// Why a member's command deleted a memory, for its history.
const (
	forgetReason    = "a member asked Ada to forget it (!ada forget)"
	forgetAllReason = "a moderator asked Ada to forget all the room's memories (!ada forget all)"
)

// notYoursToForget is the refusal.
const notYoursToForget = "🚫 That memory came from another member and is not about you. Only they or a room moderator (power level 50 or more) can make me forget it."

// actor is the command's sender in core's rule: a member of this room, its
// moderator at power level 50 or more.
func (cs *commands) actor(ctx context.Context, c *commandEvent) (core.Actor, int, error) {
	level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
	if err != nil {
		return core.Actor{}, 0, err
	}
	room := c.evt.RoomID.String()
	return core.Actor{UserID: c.evt.Sender.String(), Rooms: []string{room},
		Moderates: func(r string) bool { return r == room && level >= moderatorLevel }}, level, nil
}

// mayForget reports whether the command's sender may forget m.
func (cs *commands) mayForget(ctx context.Context, c *commandEvent, m core.Memory) (bool, error) {
	a, _, err := cs.actor(ctx, c)
	if err != nil {
		return false, err
	}
	return a.MayForget(m.Access()), nil
}
