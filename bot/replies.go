package bot

import (
	"context"

	"maunium.net/go/mautrix/event"
)

// A reply to one of Ada's messages is addressed to her, whatever the client
// sends with it (issue 27, item 7): m.mentions (a mention), or only the
// reply relation with an HTML <mx-reply> or a plain-text "> <@ada:…> …"
// fallback. The fallback is a quote of her own words: it never reaches the
// model, the room's context or the store.

// triggerReply is a reply to one of the bot's messages.
const triggerReply trigger = "reply"

// removeReplyFallback strips a reply's fallback quote from content: the HTML
// <mx-reply> with its plain twin (mautrix), and a plain-text fallback sent
// without HTML, which mautrix leaves in place.
func removeReplyFallback(c *event.MessageEventContent) {
	c.RemoveReplyFallback()
	if c.RelatesTo.GetReplyTo() != "" {
		c.Body = event.TrimReplyFallbackText(c.Body)
	}
}

// repliesToBot reports a message that replies to one of the bot's own
// messages. Only the replied-to event's sender is needed, which is in the
// clear also in encrypted rooms, so the event is not decrypted. A thread
// message's fallback reply (to the thread's latest event) does not count.
func (h *messageHandler) repliesToBot(ctx context.Context, evt *event.Event, c *event.MessageEventContent) bool {
	target := c.RelatesTo.GetNonFallbackReplyTo()
	if target == "" || !h.act.mentions {
		return false
	}
	replied, err := h.mx.cli.GetEvent(ctx, evt.RoomID, target)
	if err != nil {
		logFrom(ctx, h.log).Warn("could not fetch the message replied to", "reply_to", target.String(), "error", err)
		return false
	}
	return replied.Sender == h.mx.cli.UserID
}
