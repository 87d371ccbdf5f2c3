package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Images are read with OCR and their text becomes context for a question
// (core.ChatRequest.OCRContext). Which image belongs to a question is
// decided here; see doc.go for the rules as members see them.

// imageWindow is how long a member's latest image stays attached to their
// next questions to Ada: long enough to upload a picture and then type
// "Ada, what does this say?", short enough that a later, unrelated question
// does not drag it along.
const imageWindow = 5 * time.Minute

// defaultImagePrompt is the question for an image sent to Ada without one.
const defaultImagePrompt = "What does this image say?"

// question is what answer asks the backend: the prompt, and an upload to
// read with OCR first, if any.
type question struct {
	prompt string
	image  *upload
}

// upload is an m.image or m.file message whose media may be read.
type upload struct {
	id      id.EventID
	content *event.MessageEventContent
}

// recentImage is a member's latest image in a room. Only its event id is
// kept: the media (and, in encrypted rooms, its key) is fetched again when
// needed, so no image bytes or keys sit in memory between messages.
type recentImage struct {
	id id.EventID
	at time.Time // the event's server timestamp
}

// isUpload reports the message types the bot may read media from.
func isUpload(c *event.MessageEventContent) bool {
	return c.MsgType == event.MsgImage || c.MsgType == event.MsgFile
}

// declaredImage reports an upload that says it is an image: an m.image, or
// an m.file with an image/* type. Only these are remembered as a member's
// latest image; the bytes are checked again before OCR.
func declaredImage(c *event.MessageEventContent) bool {
	if c.MsgType == event.MsgImage {
		return true
	}
	return c.MsgType == event.MsgFile && strings.HasPrefix(mimeOf(c), "image/")
}

func mimeOf(c *event.MessageEventContent) string {
	if c.Info == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(c.Info.MimeType))
}

// caption is the text a member wrote with an upload. Since Matrix 1.10 the
// body is a caption only when filename is set and differs from it;
// otherwise the body is the file's name, which must never wake the bot
// (a file called "ada.png").
func caption(c *event.MessageEventContent) string {
	if c.FileName != "" && c.Body != c.FileName {
		return strings.TrimSpace(c.Body)
	}
	return ""
}

// captionOnly is the upload as activation sees it: its caption as the body,
// and its mentions.
func captionOnly(c *event.MessageEventContent) *event.MessageEventContent {
	out := &event.MessageEventContent{MsgType: c.MsgType, Body: caption(c), Mentions: c.Mentions}
	if out.Body != "" {
		out.Format, out.FormattedBody = c.Format, c.FormattedBody
	}
	return out
}

// uploadContextText is how an upload appears among the room's recent
// messages: the model learns that an image was sent, never its bytes.
func uploadContextText(c *event.MessageEventContent) string {
	kind := "file"
	if c.MsgType == event.MsgImage {
		kind = "image"
	}
	name := c.FileName
	if name == "" {
		name = c.Body
	}
	s := fmt.Sprintf("[%s: %s]", kind, strings.TrimSpace(name))
	if cap := caption(c); cap != "" {
		s += " " + cap
	}
	return s
}

// handleUpload runs for a live m.image or m.file from an allowed member. It
// notes an image as the sender's latest, and reads it at once when it is
// addressed to Ada: in a direct chat, or with a caption that mentions Ada
// or uses her name or a keyword.
func (b *Bot) handleUpload(ctx context.Context, evt *event.Event, c *event.MessageEventContent, s roomSettings) error {
	if declaredImage(c) {
		b.rooms.get(evt.RoomID).noteImage(evt.Sender, recentImage{id: evt.ID, at: time.UnixMilli(evt.Timestamp)})
	}
	trig := b.act.check(captionOnly(c), b.opts.RespondToDMs && b.isDM(ctx, evt.RoomID))
	if trig == triggerNone {
		return nil
	}
	q := question{prompt: defaultImagePrompt, image: &upload{id: evt.ID, content: c}}
	if rest := strings.TrimSpace(b.address.ReplaceAllString(caption(c), "")); rest != "" {
		q.prompt = rest
	}
	logFrom(ctx, b.log).Info("answering an upload", "trigger", string(trig), "msgtype", string(c.MsgType))
	return b.answer(ctx, evt, q, s)
}

// questionFor turns a text message addressed to Ada into a question. A reply
// to an upload is about that upload. A reply to anything else is about that
// message, not an image. Otherwise the sender's latest image in the room
// from the last imageWindow comes along: members upload a picture first
// and ask about it in the next message.
func (b *Bot) questionFor(ctx context.Context, evt *event.Event, c *event.MessageEventContent) question {
	q := question{prompt: b.promptText(c.Body)}
	log := logFrom(ctx, b.log)
	if target := c.RelatesTo.GetNonFallbackReplyTo(); target != "" {
		up, err := b.fetchUpload(ctx, evt.RoomID, target)
		switch {
		case err != nil && !errors.Is(err, errNotUpload):
			log.Warn("could not fetch the message replied to; answering without it", "reply_to", target.String(), "error", err)
		case err == nil:
			q.image = up
		}
		return q
	}
	rt := b.rooms.get(evt.RoomID)
	img, ok := rt.latestImage(evt.Sender, time.UnixMilli(evt.Timestamp))
	if !ok {
		return q
	}
	up, err := b.fetchUpload(ctx, evt.RoomID, img.id)
	if err != nil {
		log.Warn("could not fetch the sender's latest image; answering without it", "image_event", img.id.String(), "error", err)
		rt.dropImage(img.id)
		return q
	}
	q.image = up
	return q
}

var errNotUpload = errors.New("not an image or file message")

// fetchUpload gets a message from the homeserver, decrypting it in an
// encrypted room, and returns it if it is an upload.
func (b *Bot) fetchUpload(ctx context.Context, room id.RoomID, eventID id.EventID) (*upload, error) {
	evt, err := b.cli.GetEvent(ctx, room, eventID)
	if err != nil {
		return nil, err
	}
	evt.RoomID = room
	if err := evt.Content.ParseRaw(evt.Type); err != nil && !errors.Is(err, event.ErrContentAlreadyParsed) {
		return nil, err
	}
	if evt.Type == event.EventEncrypted {
		if b.crypto == nil {
			return nil, errors.New("the message is encrypted and encryption is not set up")
		}
		if evt, err = b.crypto.Decrypt(ctx, evt); err != nil {
			return nil, fmt.Errorf("decrypt: %w", err)
		}
	}
	c, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if evt.Type != event.EventMessage || !ok || !isUpload(c) || evt.Unsigned.RedactedBecause != nil {
		return nil, errNotUpload
	}
	return &upload{id: evt.ID, content: c}, nil
}

// noteImage makes img the sender's latest image, and forgets images that
// are out of the window, so the map stays as small as the active senders.
func (rt *roomRuntime) noteImage(sender id.UserID, img recentImage) {
	if rt.images == nil {
		rt.images = make(map[id.UserID]recentImage)
	}
	for u, old := range rt.images {
		if img.at.Sub(old.at) > imageWindow {
			delete(rt.images, u)
		}
	}
	rt.images[sender] = img
}

// latestImage is the sender's image from the window before `at`, if any.
func (rt *roomRuntime) latestImage(sender id.UserID, at time.Time) (recentImage, bool) {
	img, ok := rt.images[sender]
	if !ok || at.Before(img.at) || at.Sub(img.at) > imageWindow {
		return recentImage{}, false
	}
	return img, true
}

// dropImage forgets an image that could not be read, so that the sender's
// next questions are not failed by it again.
func (rt *roomRuntime) dropImage(eventID id.EventID) {
	for u, img := range rt.images {
		if img.id == eventID {
			delete(rt.images, u)
		}
	}
}
