package bot

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// messageHandler handles a room message in the room's queue: it keeps it
// as context and hands a question to the answerer, a command to commands.
// It also answers for the messages a full queue refused (busy.go).
type messageHandler struct {
	mx      *matrix
	window  *window
	media   *media
	answers *answerer
	cmds    *commands
	bridge  *storage.Bridge
	policy  *invitePolicy
	act     *activation
	// respondToDMs is RESPOND_TO_DMS.
	respondToDMs bool
	busy         busyNotices
	now          func() time.Time
	log          *slog.Logger
}

// handle runs in the room's queue: it remembers the message as
// context, then, for a live message from an allowed user, runs a command,
// handles an upload (media.go), or answers when the message activates the
// bot.
func (h *messageHandler) handle(ctx context.Context, evt *event.Event, backlog bool) error {
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
	s, err := h.bridge.Room(ctx, evt.RoomID.String(), core.NewConversationID(), h.now())
	if err != nil {
		return err
	}
	if !isCommand && evt.Sender != h.mx.cli.UserID { // the bot's answers are recorded when sent
		h.window.remember(ctx, s, storage.BridgeMessage{EventID: evt.ID.String(), Sender: evt.Sender.String(), Text: text, Time: time.UnixMilli(evt.Timestamp)})
	}
	log := logFrom(ctx, h.log)
	switch {
	case backlog || evt.Sender == h.mx.cli.UserID:
		return nil
	case !h.policy.userAllowed(evt.Sender):
		log.Debug("ignoring a message from a user not in ALLOWED_USERS")
		return nil
	case isCommand:
		return h.cmds.runCommand(ctx, evt, s, args)
	case upload:
		if q, ok := h.media.uploadQuestion(ctx, evt, content); ok {
			return h.answers.answer(ctx, evt, q, s)
		}
		return nil
	}
	trig := h.act.check(content, h.respondToDMs && h.mx.isDM(ctx, evt.RoomID))
	if trig == triggerNone {
		// Why a message got no answer is the first question when debugging
		// a room; the text itself is never logged.
		log.Debug("not answering: no mention, display name, DM or keyword")
		return nil
	}
	q := h.media.questionFor(ctx, evt, content)
	log.Info("answering", "trigger", string(trig), "with_image", q.image != nil)
	return h.answers.answer(ctx, evt, q, s)
}
