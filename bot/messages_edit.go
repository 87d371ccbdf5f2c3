package bot

import (
	"context"
	"encoding/json"
	"fmt"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// handleEdit handles an edit (m.replace) as the message it now is (issue
// 27): what the old text caused is undone exactly as for a redaction (its
// text in the room's context, the turns and memories stored because of it,
// Ada's replies to it, which are redacted), then the new text is handled
// like a new message under the original's id: kept as context, run as a
// command, or answered when it addresses Ada. So an edit that newly
// addresses Ada is answered once, an edit of an answered question gets a
// new answer in place of the old one (and what is learned from it), and an
// edit of plain chatter only updates the context. Only the sender's own
// edits count, as in clients.
func (h *messageHandler) handleEdit(ctx context.Context, evt *event.Event, backlog bool) error {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok || content.NewContent == nil {
		return nil
	}
	original := content.RelatesTo.GetReplaceID()
	orig, err := h.mx.cli.GetEvent(ctx, evt.RoomID, original)
	if err != nil {
		return fmt.Errorf("fetch the edited message: %w", err)
	}
	if orig.Sender != evt.Sender || orig.Unsigned.RedactedBecause != nil {
		logFrom(ctx, h.log).Debug("ignoring an edit of another member's message or of a redacted one")
		return nil
	}
	linked, err := h.forget.forgetEvent(ctx, evt.RoomID, original, editReason)
	if err != nil {
		return err
	}
	logFrom(ctx, h.log).Info("edit: what the old text caused is undone", "linked", linked)
	replaced := *evt
	replaced.ID = original
	nc := *content.NewContent
	// m.new_content carries no relation: the edited question stays in the
	// original's thread, and is answered there.
	nc.RelatesTo = nil
	if root := fetchedThreadRoot(orig); root != "" {
		nc.RelatesTo = &event.RelatesTo{Type: event.RelThread, EventID: root}
	}
	replaced.Content = event.Content{Parsed: &nc}
	return h.handleMessage(ctx, &replaced, backlog)
}

// fetchedThreadRoot is the thread a fetched event was sent in, read from
// its raw content: m.relates_to is in the clear in encrypted events too.
func fetchedThreadRoot(evt *event.Event) id.EventID {
	var c struct {
		RelatesTo *event.RelatesTo `json:"m.relates_to"`
	}
	if json.Unmarshal(evt.Content.VeryRaw, &c) != nil {
		return ""
	}
	return c.RelatesTo.GetThreadParent()
}
