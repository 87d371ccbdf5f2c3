package bot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// membership decides where the bot is: it joins on an allowed invite (and
// introduces itself), refuses the others, and leaves rooms where it is
// alone.
type membership struct {
	mx     *matrix
	bridge *storage.Bridge
	policy *invitePolicy
	rooms  *roomStates
	opts   Options
	now    func() time.Time
	log    *slog.Logger
}

// handleInvite joins when the invite policy allows it and rejects (leaves)
// the invite otherwise, so a refused invite never stays pending. It is
// idempotent: a second delivery of the invite finds the bot joined.
func (ms *membership) handleInvite(ctx context.Context, evt *event.Event) error {
	room, log := evt.RoomID, logFrom(ctx, ms.log)
	if ms.mx.cli.StateStore.IsMembership(ctx, room, ms.mx.cli.UserID, event.MembershipJoin) {
		return nil
	}
	names := roomNames{ID: room, Aliases: ms.inviteAliases(ctx, evt)}
	if reason := ms.policy.decide(names, evt.Sender); reason != "" {
		log.Info("invite rejected", "reason", reason, "inviter", evt.Sender.String())
		_, err := ms.mx.cli.LeaveRoom(ctx, room, &mautrix.ReqLeave{Reason: "Ada does not join here: " + reason})
		return err
	}
	if err := ms.mx.forgetMembers(ctx, room); err != nil {
		return err
	}
	if _, err := ms.mx.cli.JoinRoomByID(ctx, room); err != nil {
		return fmt.Errorf("join after invite: %w", err)
	}
	log.Info("joined room on invite", "inviter", evt.Sender.String())
	ms.rooms.forget(room) // anything known from an earlier stay is stale
	s, err := ms.bridge.Room(ctx, room.String(), core.NewConversationID(), ms.now())
	if err != nil {
		return err
	}
	// Every stay is introduced, a re-invite after a kick or a leave too
	// (intro_sent then stays set): the members who invited her back may
	// not have seen the first intro. A second delivery of the invite found
	// her joined above.
	if !ms.opts.SendIntro {
		return nil
	}
	if _, err := ms.mx.sendNoticeTo(ctx, room, ms.introText(s, evt.Content.AsMember().IsDirect)); err != nil {
		return fmt.Errorf("send the introduction: %w", err)
	}
	_, err = ms.bridge.ClaimIntro(ctx, room.String(), ms.now())
	return err
}

// inviteAliases collects the names the room goes by: the canonical alias in
// the invite's stripped state, and every configured #alias that resolves to
// this room.
func (ms *membership) inviteAliases(ctx context.Context, evt *event.Event) []string {
	var out []string
	for _, st := range evt.Unsigned.InviteRoomState {
		if st.Type != event.StateCanonicalAlias {
			continue
		}
		if c, ok := st.Content.Parsed.(*event.CanonicalAliasEventContent); ok {
			if c.Alias != "" {
				out = append(out, c.Alias.String())
			}
			for _, a := range c.AltAliases {
				out = append(out, a.String())
			}
		}
	}
	for _, alias := range ms.policy.configuredAliases() {
		if slices.Contains(out, alias) {
			continue
		}
		resp, err := ms.mx.cli.ResolveAlias(ctx, id.RoomAlias(alias))
		if err != nil {
			logFrom(ctx, ms.log).Debug("could not resolve a configured alias", "alias", alias, "error", err)
			continue
		}
		if resp.RoomID == evt.RoomID {
			out = append(out, alias)
		}
	}
	return out
}

// leaveIfAlone leaves a room in which no one else is joined or invited.
func (ms *membership) leaveIfAlone(ctx context.Context, room id.RoomID) error {
	if !ms.mx.cli.StateStore.IsMembership(ctx, room, ms.mx.cli.UserID, event.MembershipJoin) {
		return nil
	}
	if err := ms.mx.prepareRoom(ctx, room); err != nil {
		return err
	}
	members, err := ms.mx.cli.StateStore.GetRoomJoinedOrInvitedMembers(ctx, room)
	if err != nil {
		return err
	}
	for _, m := range members {
		if m != ms.mx.cli.UserID {
			return nil
		}
	}
	logFrom(ctx, ms.log).Info("leaving a room where the bot is alone")
	_, err = ms.mx.cli.LeaveRoom(ctx, room, &mautrix.ReqLeave{Reason: "everyone else left"})
	ms.rooms.forget(room)
	return err
}

// introText is the one message the bot posts after joining; dm says the
// invite was to a direct chat (is_direct: at the join, a group room may
// still count two members).
func (ms *membership) introText(s storage.BridgeRoom, dm bool) string {
	return fmt.Sprintf("👋 Hi, I'm %s. %s Type `!ada help` to see what I can do.\n\n%s",
		ms.opts.DisplayName, ms.opts.howToAsk(dm), ms.opts.storageSentence(s))
}

// howToAsk tells members, in one sentence, how to wake the bot with the
// current settings; in a direct chat (dm) every message is for the bot.
// The intro and `!ada help` say it in the same words.
func (o Options) howToAsk(dm bool) string {
	if dm && o.RespondToDMs {
		return "This is a direct chat: just write to me, every message here is for me."
	}
	var ways []string
	if o.RespondToMentions {
		ways = append(ways, "mention me")
	}
	if o.RespondToDisplayName {
		ways = append(ways, fmt.Sprintf("write my name (%s)", o.DisplayName))
	}
	if o.RespondToKeywords && len(o.Keywords) > 0 {
		quoted := make([]string, len(o.Keywords))
		for i, k := range o.Keywords {
			quoted[i] = "“" + k + "”"
		}
		ways = append(ways, "use a keyword ("+strings.Join(quoted, ", ")+")")
	}
	if o.RespondToDMs {
		ways = append(ways, "write to me in a direct chat")
	}
	if len(ways) == 0 {
		return "I only answer commands here."
	}
	return "To ask me something, " + orList(ways) + "."
}

// orList joins items as a sentence does: "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
