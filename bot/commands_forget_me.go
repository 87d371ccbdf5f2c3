package bot

import (
	"context"
	"fmt"
	"strings"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// forgetMeReason is the history's reason for what `!ada forget me` deletes.
const forgetMeReason = "a member asked Ada to forget them in the room"

// isPersonRef reports whether a forget argument names a person: "me" or a
// Matrix user id.
func isPersonRef(arg string) bool {
	return strings.EqualFold(arg, "me") || strings.HasPrefix(arg, "@")
}

// forgetPerson is `!ada forget me` (any member, for themselves) and `!ada
// forget @user` (moderators, or the member naming themselves): what Ada
// holds from that member in this room goes — their stored messages, the
// text of their turns and of Ada's answers to them, the memories they told
// or that are about them — and the summaries are rewritten without them. It
// answers with the counts.
func (cs *commands) forgetPerson(ctx context.Context, c *commandEvent, arg string) (string, error) {
	who := c.evt.Sender
	if !strings.EqualFold(arg, "me") {
		who = id.UserID(arg)
		if _, _, err := who.Parse(); err != nil {
			return fmt.Sprintf("%q is not a Matrix user id; write it like `@alice:example.org`.", arg), nil
		}
	}
	if who != c.evt.Sender {
		// Forgetting another member is forgetting what they told and what
		// is about them: the room's moderators only (core.Actor).
		a, level, err := cs.actor(ctx, c)
		if err != nil {
			return "", err
		}
		if !a.Moderates(c.evt.RoomID.String()) {
			return fmt.Sprintf("Only room moderators (power level %d or more) can make me forget another member; your level is %d. `!ada forget me` forgets you.", moderatorLevel, level), nil
		}
	}
	room := c.evt.RoomID
	// The forgetting is recorded first: from now on their earlier events,
	// which the homeserver still serves, stay out of prompts (reply chains
	// and quotes). Over ADA_API_URL the core's listener, which records it
	// too, writes to another database. Its time is the command's, never
	// later than now (sentAt): a stamp set ahead would silence them.
	asked := sentAt(c.evt, cs.now())
	if err := cs.bridge.RecordForgotten(ctx, who.String(), room.String(), asked); err != nil {
		return "", err
	}
	// Answers to their questions still being made stop first, so that
	// nothing of them is posted after their replies are taken back.
	cs.inFlight.takeBackFrom(ctx, room, who)
	messages, err := cs.bridge.DeleteMessagesFrom(ctx, room.String(), who.String())
	if err != nil {
		return "", err
	}
	inMemory := cs.window.dropWhere(room, func(m storage.BridgeMessage) bool { return m.Sender == who.String() })
	if !cs.window.storageOn(c.room) {
		messages += inMemory // privacy mode: only in memory
	}
	replies, err := cs.redactRepliesTo(ctx, room, who)
	if err != nil {
		return "", err
	}
	// Their pending reminders here are what they said too. They go before
	// the core's forgetting, whose listener deletes them as well when the
	// core runs in this process, so that the answer counts them.
	reminders, err := cs.reminders.forgetMember(ctx, room, who)
	if err != nil {
		return "", err
	}
	res, err := cs.backend.Forget(ctx, core.ForgetRequest{Entity: who.String(), RoomID: room.String(), Reason: forgetMeReason, At: asked})
	if err != nil {
		return "", err
	}
	// Their links to the memory page are data about them too, and their
	// open page sessions end.
	if err := cs.bridge.EndWebSessions(ctx, who.String()); err != nil {
		return "", err
	}
	// What the last answer used, and the members' listings, may hold it.
	cs.rooms.get(room).listed = nil
	dropWhy(ctx, cs.bridge, cs.rooms, cs.log, room, "")
	logFrom(ctx, cs.log).Info("member forgotten on request", "member", who.String(), "by", c.evt.Sender.String(),
		"messages", messages, "replies", replies, "turns", res.Turns, "memories", res.Memories, "summaries", res.Summaries, "reminders", reminders)
	whom := "you"
	if who != c.evt.Sender {
		whom = who.String()
	}
	return forgotText(whom, messages, res.Turns, res.Memories, replies, res.Summaries) + cancelledText(reminders), nil
}

// cancelledText says how many pending reminders a forgetting cancelled.
func cancelledText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " 1 pending reminder was cancelled."
	}
	return fmt.Sprintf(" %d pending reminders were cancelled.", n)
}

// forgotText is forget me's answer, with the counts.
func forgotText(whom string, messages, turns, memories, replies, summaries int) string {
	redacted := fmt.Sprintf("%d of my replies were redacted", replies)
	if replies == 1 {
		redacted = "1 of my replies was redacted"
	}
	return fmt.Sprintf("🗑️ I forgot what I held from %s in this room: %s, %s (questions and my answers to them), %s; %s; %s being rewritten without them.",
		whom, plural(messages, "stored message", "stored messages"), plural(turns, "turn", "turns"),
		plural(memories, "memory", "memories"), redacted, plural(summaries, "summary is", "summaries are"))
}

// redactRepliesTo redacts what Ada posted for the member's messages (her
// replies, their edits, her reactions), as a redaction of each message
// would (they may quote it), and returns how many reply messages went. The
// links name the member (privacy mode keeps them too); links written
// before they did (migration 0014) are not found.
func (cs *commands) redactRepliesTo(ctx context.Context, room id.RoomID, who id.UserID) (int, error) {
	links, err := cs.bridge.ReplyLinksTo(ctx, room.String(), who.String())
	if err != nil {
		return 0, err
	}
	replies := 0
	for _, l := range links {
		if err := redactReply(ctx, cs.mx, cs.window, cs.bridge, room, id.EventID(l.DocID)); err != nil {
			return replies, err
		}
		if err := cs.bridge.UnlinkDoc(ctx, room.String(), l.DocID); err != nil {
			return replies, err
		}
		if l.Kind == storage.LinkReply {
			replies++
		}
	}
	return replies, nil
}
