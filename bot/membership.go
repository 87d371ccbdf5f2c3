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
	if _, err := ms.mx.cli.JoinRoomByID(ctx, room); err != nil {
		return fmt.Errorf("join after invite: %w", err)
	}
	log.Info("joined room on invite", "inviter", evt.Sender.String())
	ms.rooms.forget(room) // anything known from an earlier stay is stale
	s, err := ms.bridge.Room(ctx, room.String(), core.NewConversationID(), ms.now())
	if err != nil {
		return err
	}
	if !ms.opts.SendIntro || s.IntroSent {
		return nil
	}
	if _, err := ms.mx.sendNoticeTo(ctx, room, ms.introText(s)); err != nil {
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

// introText is the one message the bot posts after joining.
func (ms *membership) introText(s storage.BridgeRoom) string {
	var ways []string
	if ms.opts.RespondToMentions {
		ways = append(ways, "mention me")
	}
	if ms.opts.RespondToDisplayName {
		ways = append(ways, fmt.Sprintf("write my name (%s)", ms.opts.DisplayName))
	}
	if ms.opts.RespondToKeywords && len(ms.opts.Keywords) > 0 {
		ways = append(ways, "use a keyword ("+strings.Join(ms.opts.Keywords, ", ")+")")
	}
	if ms.opts.RespondToDMs {
		ways = append(ways, "talk to me in a direct chat")
	}
	how := "Type `!ada help` to see what I can do."
	if len(ways) > 0 {
		how = "To ask me something, " + strings.Join(ways, ", ") + ". " + how
	}
	return fmt.Sprintf("👋 Hi, I'm %s. %s\n\nIn this room, %s.", ms.opts.DisplayName, how, ms.opts.storageText(s))
}
