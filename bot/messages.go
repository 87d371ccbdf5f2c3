package bot

import (
	"context"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// handleMessage runs in the room's queue: it remembers the message as
// context, then, for a live message from an allowed user, runs a command,
// handles an upload (media.go), or answers when the message activates the
// bot.
func (b *Bot) handleMessage(ctx context.Context, evt *event.Event, backlog bool) error {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok {
		return nil
	}
	content.RemoveReplyFallback()
	upload := isUpload(content)
	text := strings.TrimSpace(content.Body)
	if upload {
		text = uploadContextText(content)
	}
	if text == "" {
		return nil
	}
	args, isCommand := parseCommand(text)
	isCommand = isCommand && !upload
	s, err := b.bridge.Room(ctx, evt.RoomID.String(), core.NewConversationID(), b.now())
	if err != nil {
		return err
	}
	if !isCommand && evt.Sender != b.mx.cli.UserID { // the bot's answers are recorded when sent
		b.window.remember(ctx, s, storage.BridgeMessage{EventID: evt.ID.String(), Sender: evt.Sender.String(), Text: text, Time: time.UnixMilli(evt.Timestamp)})
	}
	log := logFrom(ctx, b.log)
	switch {
	case backlog || evt.Sender == b.mx.cli.UserID:
		return nil
	case !b.policy.userAllowed(evt.Sender):
		log.Debug("ignoring a message from a user not in ALLOWED_USERS")
		return nil
	case isCommand:
		return b.cmds.runCommand(ctx, evt, s, args)
	case upload:
		if q, ok := b.media.uploadQuestion(ctx, evt, content); ok {
			return b.answers.answer(ctx, evt, q, s)
		}
		return nil
	}
	trig := b.act.check(content, b.opts.RespondToDMs && b.mx.isDM(ctx, evt.RoomID))
	if trig == triggerNone {
		// Why a message got no answer is the first question when debugging
		// a room; the text itself is never logged.
		log.Debug("not answering: no mention, display name, DM or keyword")
		return nil
	}
	q := b.media.questionFor(ctx, evt, content)
	log.Info("answering", "trigger", string(trig), "with_image", q.image != nil)
	return b.answers.answer(ctx, evt, q, s)
}
