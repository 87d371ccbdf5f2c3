package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Images are read with OCR and their text becomes context for a question
// (core.ChatRequest.OCRContext). Which image belongs to a question is
// decided here; see doc.go for the rules as members see them.

// media turns messages into questions, deciding which image belongs to
// which (doc.go), and reads a question's image with OCR (media_read.go).
type media struct {
	mx      *matrix
	backend Backend
	rooms   *roomStates
	act     *activation
	// address matches "Ada:" at the start of a question (see promptText).
	address      *regexp.Regexp
	respondToDMs bool
	log          *slog.Logger
}

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

// uploadQuestion runs for a live m.image or m.file from an allowed member.
// It notes an image as the sender's latest, and makes it a question when it
// is addressed to Ada: in a direct chat, or with a caption that mentions
// Ada or uses her name or a keyword.
func (md *media) uploadQuestion(ctx context.Context, evt *event.Event, c *event.MessageEventContent) (question, bool) {
	if declaredImage(c) {
		md.rooms.get(evt.RoomID).noteImage(evt.Sender, recentImage{id: evt.ID, at: time.UnixMilli(evt.Timestamp)})
	}
	trig := md.act.check(captionOnly(c), md.respondToDMs && md.mx.isDM(ctx, evt.RoomID))
	if trig == triggerNone {
		return question{}, false
	}
	q := question{prompt: defaultImagePrompt, image: &upload{id: evt.ID, content: c}}
	if rest := strings.TrimSpace(md.address.ReplaceAllString(caption(c), "")); rest != "" {
		q.prompt = rest
	}
	logFrom(ctx, md.log).Info("answering an upload", "trigger", string(trig), "msgtype", string(c.MsgType))
	return q, true
}

// questionFor turns a text message addressed to Ada into a question. A reply
// to an upload is about that upload. A reply to anything else is about that
// message, not an image. Otherwise the sender's latest image in the room
// from the last imageWindow comes along: members upload a picture first
// and ask about it in the next message.
func (md *media) questionFor(ctx context.Context, evt *event.Event, c *event.MessageEventContent) question {
	q := question{prompt: md.promptText(c.Body)}
	log := logFrom(ctx, md.log)
	if target := c.RelatesTo.GetNonFallbackReplyTo(); target != "" {
		up, err := md.fetchUpload(ctx, evt.RoomID, target)
		switch {
		case err != nil && !errors.Is(err, errNotUpload):
			log.Warn("could not fetch the message replied to; answering without it", "reply_to", target.String(), "error", err)
		case err == nil:
			q.image = up
		}
		return q
	}
	rt := md.rooms.get(evt.RoomID)
	img, ok := rt.latestImage(evt.Sender, time.UnixMilli(evt.Timestamp))
	if !ok {
		return q
	}
	up, err := md.fetchUpload(ctx, evt.RoomID, img.id)
	if err != nil {
		log.Warn("could not fetch the sender's latest image; answering without it", "image_event", img.id.String(), "error", err)
		rt.dropImage(img.id)
		return q
	}
	q.image = up
	return q
}

// addressPattern matches a leading address to the bot ("Ada: ...",
// "@ada:x, ..."). The user id comes first: "@ada:example.org" also starts
// with "@ada".
func addressPattern(o Options) *regexp.Regexp {
	uid, name := regexp.QuoteMeta(o.UserID), regexp.QuoteMeta(o.DisplayName)
	return regexp.MustCompile(`(?i)^\s*(?:` + uid + `|@?` + name + `)\s*[:,]\s*`)
}

// promptText drops a leading address to the bot so the model sees the
// question, not its own name.
func (md *media) promptText(body string) string {
	if rest := md.address.ReplaceAllString(body, ""); strings.TrimSpace(rest) != "" {
		return strings.TrimSpace(rest)
	}
	return strings.TrimSpace(body)
}

// A member uploads a picture first and asks about it in the next message:
// each room keeps its members' latest images for a while.

// imageWindow is how long a member's latest image stays attached to their
// next questions to Ada: long enough to upload a picture and then type
// "Ada, what does this say?", short enough that a later, unrelated question
// does not drag it along.
const imageWindow = 5 * time.Minute

// recentImage is a member's latest image in a room. Only its event id is
// kept: the media (and, in encrypted rooms, its key) is fetched again when
// needed, so no image bytes or keys sit in memory between messages.
type recentImage struct {
	id id.EventID
	at time.Time // the event's server timestamp
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
