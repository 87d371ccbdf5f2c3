package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// maxReplyChain bounds the messages a question's reply chain brings into
// the prompt (each one a homeserver round trip).
const maxReplyChain = 3

// replyChain is the message evt replies to, the one that message replies
// to, and so on (at most maxReplyChain), oldest first, as context for the
// answer: fetched from the homeserver and decrypted in encrypted rooms, so
// that a reply to something older than the room's window, or from before
// Ada joined, still brings it along. A reply to one of Ada's answers brings
// the answer and the question it answered: her thread of thought goes on.
// Messages among the room's last `window` context messages are already in
// the prompt and are skipped, but the chain is followed through them. It
// runs in the room's job; a message that cannot be fetched ends the chain,
// and so does one of a member forgotten since (forgottenEvent).
// Senders are named as the room reads the names (labels).
func (a *answerer) replyChain(ctx context.Context, evt *event.Event, window int, labels core.Labels) []core.ContextMessage {
	c, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok {
		return nil
	}
	inWindow := a.recentIDs(evt.RoomID, window)
	var chain []core.ContextMessage
	seen := map[id.EventID]bool{evt.ID: true}
	// replier is the chain's entry for the message that replies to target,
	// -1 when that message is not in the chain (the question, or one of
	// the window's).
	replier := -1
	target := c.RelatesTo.GetNonFallbackReplyTo()
	for hops := 0; target != "" && !seen[target] && hops < maxReplyChain; hops++ {
		seen[target] = true
		replied, rc, err := fetchMessage(ctx, a.mx, evt.RoomID, target)
		if err != nil {
			logFrom(ctx, a.log).Warn("could not fetch a message of the reply chain", "reply_to", target.String(), "error", err)
			break
		}
		if forgottenEvent(ctx, a.bridge, a.log, evt.RoomID, replied) {
			// Its sender was forgotten since: it ends the chain, and the
			// message replying to it loses its quote of it.
			if replier >= 0 {
				chain[replier].Text = stripQuote(chain[replier].Text)
			}
			break
		}
		replier = -1
		if !inWindow[target] {
			replier = len(chain)
			chain = append(chain, core.ContextMessage{Sender: a.mx.labelIn(ctx, labels, evt.RoomID, replied.Sender),
				Text: chainText(rc), Timestamp: time.UnixMilli(replied.Timestamp)})
		}
		target = rc.RelatesTo.GetNonFallbackReplyTo()
	}
	slices.Reverse(chain)
	return chain
}

// recentIDs are the event ids of the room's last n context messages.
func (a *answerer) recentIDs(room id.RoomID, n int) map[id.EventID]bool {
	ring := a.rooms.get(room).ring
	out := make(map[id.EventID]bool, n)
	for i := max(0, len(ring)-n); i < len(ring); i++ {
		out[id.EventID(ring[i].EventID)] = true
	}
	return out
}

// chainText is a chain message's text as the room's context records it,
// without its own reply fallback, bounded like the window's messages.
func chainText(c *event.MessageEventContent) string {
	removeReplyFallback(c)
	text := strings.TrimSpace(c.Body)
	if isUpload(c) {
		text = uploadContextText(c)
	}
	if r := []rune(text); len(r) > maxContextRunes {
		text = string(r[:maxContextRunes]) + "…"
	}
	return text
}

var errNotMessage = errors.New("not a message, or redacted")

// fetchMessage gets a room message from the homeserver, decrypting it in an
// encrypted room; a redacted message or another kind of event is
// errNotMessage.
func fetchMessage(ctx context.Context, mx *matrix, room id.RoomID, eventID id.EventID) (*event.Event, *event.MessageEventContent, error) {
	evt, err := mx.cli.GetEvent(ctx, room, eventID)
	if err != nil {
		return nil, nil, err
	}
	evt.RoomID = room
	if err := evt.Content.ParseRaw(evt.Type); err != nil && !errors.Is(err, event.ErrContentAlreadyParsed) {
		return nil, nil, err
	}
	if evt.Type == event.EventEncrypted {
		if mx.crypto == nil {
			return nil, nil, errors.New("the message is encrypted and encryption is not set up")
		}
		if evt, err = mx.crypto.Decrypt(ctx, evt); err != nil {
			return nil, nil, fmt.Errorf("decrypt: %w", err)
		}
	}
	c, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if evt.Type != event.EventMessage || !ok || evt.Unsigned.RedactedBecause != nil {
		return nil, nil, errNotMessage
	}
	return evt, c, nil
}
