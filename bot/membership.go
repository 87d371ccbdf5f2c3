package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// handleInvite joins when the invite policy allows it and rejects (leaves)
// the invite otherwise, so a refused invite never stays pending. It is
// idempotent: a second delivery of the invite finds the bot joined.
func (b *Bot) handleInvite(ctx context.Context, evt *event.Event) error {
	room, log := evt.RoomID, logFrom(ctx, b.log)
	if b.mx.cli.StateStore.IsMembership(ctx, room, b.mx.cli.UserID, event.MembershipJoin) {
		return nil
	}
	names := roomNames{ID: room, Aliases: b.inviteAliases(ctx, evt)}
	if reason := b.policy.decide(names, evt.Sender); reason != "" {
		log.Info("invite rejected", "reason", reason, "inviter", evt.Sender.String())
		_, err := b.mx.cli.LeaveRoom(ctx, room, &mautrix.ReqLeave{Reason: "Ada does not join here: " + reason})
		return err
	}
	if _, err := b.mx.cli.JoinRoomByID(ctx, room); err != nil {
		return fmt.Errorf("join after invite: %w", err)
	}
	log.Info("joined room on invite", "inviter", evt.Sender.String())
	b.rooms.forget(room) // anything known from an earlier stay is stale
	s, err := b.bridge.Room(ctx, room.String(), core.NewConversationID(), b.now())
	if err != nil {
		return err
	}
	if !b.opts.SendIntro || s.IntroSent {
		return nil
	}
	if _, err := b.mx.sendNoticeTo(ctx, room, b.introText(s)); err != nil {
		return fmt.Errorf("send the introduction: %w", err)
	}
	_, err = b.bridge.ClaimIntro(ctx, room.String(), b.now())
	return err
}

// inviteAliases collects the names the room goes by: the canonical alias in
// the invite's stripped state, and every configured #alias that resolves to
// this room.
func (b *Bot) inviteAliases(ctx context.Context, evt *event.Event) []string {
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
	for _, alias := range b.policy.configuredAliases() {
		if slices.Contains(out, alias) {
			continue
		}
		resp, err := b.mx.cli.ResolveAlias(ctx, id.RoomAlias(alias))
		if err != nil {
			logFrom(ctx, b.log).Debug("could not resolve a configured alias", "alias", alias, "error", err)
			continue
		}
		if resp.RoomID == evt.RoomID {
			out = append(out, alias)
		}
	}
	return out
}

// leaveIfAlone leaves a room in which no one else is joined or invited.
func (b *Bot) leaveIfAlone(ctx context.Context, room id.RoomID) error {
	if !b.mx.cli.StateStore.IsMembership(ctx, room, b.mx.cli.UserID, event.MembershipJoin) {
		return nil
	}
	if err := b.mx.prepareRoom(ctx, room); err != nil {
		return err
	}
	members, err := b.mx.cli.StateStore.GetRoomJoinedOrInvitedMembers(ctx, room)
	if err != nil {
		return err
	}
	for _, m := range members {
		if m != b.mx.cli.UserID {
			return nil
		}
	}
	logFrom(ctx, b.log).Info("leaving a room where the bot is alone")
	_, err = b.mx.cli.LeaveRoom(ctx, room, &mautrix.ReqLeave{Reason: "everyone else left"})
	b.rooms.forget(room)
	return err
}

// introText is the one message the bot posts after joining.
func (b *Bot) introText(s storage.BridgeRoom) string {
	var ways []string
	if b.opts.RespondToMentions {
		ways = append(ways, "mention me")
	}
	if b.opts.RespondToDisplayName {
		ways = append(ways, fmt.Sprintf("write my name (%s)", b.opts.DisplayName))
	}
	if b.opts.RespondToKeywords && len(b.opts.Keywords) > 0 {
		ways = append(ways, "use a keyword ("+strings.Join(b.opts.Keywords, ", ")+")")
	}
	if b.opts.RespondToDMs {
		ways = append(ways, "talk to me in a direct chat")
	}
	how := "Type `!ada help` to see what I can do."
	if len(ways) > 0 {
		how = "To ask me something, " + strings.Join(ways, ", ") + ". " + how
	}
	return fmt.Sprintf("👋 Hi, I'm %s. %s\n\nIn this room, %s.", b.opts.DisplayName, how, b.opts.storageText(s))
}
