package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// Images are read with OCR and their text becomes context for a question
// (core.ChatRequest.OCRContext). Which image belongs to a question is
// decided here; see doc.go for the rules as members see them.

// media turns messages into questions, deciding which image belongs to
// which (doc.go), and reads a question's image with OCR.
type media struct {
	mx      *matrix
	backend Backend
	rooms   *roomStates
	act     *activation
	// address finds "Ada:", "hey ada, ..." in a question (see promptText).
	address      *address
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
	// quote is the transcript of a voice message, quoted in the reply.
	quote string
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
	if rest := md.address.strip(caption(c)); rest != "" {
		q.prompt = rest
	}
	logFrom(ctx, md.log).Info("answering an upload", "trigger", string(trig), "msgtype", string(c.MsgType))
	return q, true
}

// questionFor turns a text message addressed to Ada (by trig) into a
// question. A reply to an upload is about that upload. A reply to anything
// else is about that message, not an image: a reply that woke Ada by
// replying to her (triggerReply) is not fetched again, as she posts no
// uploads. Otherwise the sender's latest image in the room from the last
// imageWindow comes along: members upload a picture first and ask about it
// in the next message.
func (md *media) questionFor(ctx context.Context, evt *event.Event, c *event.MessageEventContent, trig trigger) question {
	q := question{prompt: md.promptText(md.address.withoutPill(c))}
	log := logFrom(ctx, md.log)
	if target := c.RelatesTo.GetNonFallbackReplyTo(); target != "" {
		if trig == triggerReply {
			return q
		}
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

// promptText drops the address to the bot ("Ada: ...", "hey ada, ...",
// "..., Ada?") so that the model, the store and recall see the question,
// not the wake phrase (address.go). A message that is only an address is
// kept as it is.
func (md *media) promptText(body string) string {
	if rest := md.address.strip(body); rest != "" {
		return rest
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

// Reading a question's image: fetch the message (decrypted in encrypted
// rooms), download its media within OCR_MAX_BYTES, read it with the
// backend's OCR, and say in plain words what went wrong when that fails.

// imageError marks a failure to read a question's image, so that the
// notice talks about the image, not about the language model.
type imageError struct{ err error }

func (e *imageError) Error() string { return "read image: " + e.err.Error() }
func (e *imageError) Unwrap() error { return e.err }

// noTextFound stands in for the text of an image without any, so the model
// knows an image was read rather than seeing no image at all (the prompt
// leaves out empty sections).
const noTextFound = "(No text could be read in this image.)"

// imageContext reads the question's image, if it has one, for the chat
// request. It runs in the room's answer line, beside the room's jobs, so it
// leaves the room's runtime alone: the answer's post drops an image that
// could not be read (dropUnreadable).
func (md *media) imageContext(ctx context.Context, q question) (*core.OCRResult, error) {
	if q.image == nil {
		return nil, nil
	}
	text, err := md.readImage(ctx, q.image)
	if err != nil {
		return nil, err
	}
	return &text, nil
}

// dropUnreadable makes an image that could not be read stop being the
// sender's latest, so that their next questions are not failed by it again.
// It runs in the room's job.
func (md *media) dropUnreadable(room id.RoomID, q question, err error) {
	if ie := (*imageError)(nil); q.image != nil && errors.As(err, &ie) {
		md.rooms.get(room).dropImage(q.image.id)
	}
}

// readImage downloads an upload's media (decrypting it in encrypted rooms),
// reads it with the backend's OCR, and lets the bytes go: they are never
// written anywhere. Every error is an *imageError.
func (md *media) readImage(ctx context.Context, up *upload) (core.OCRResult, error) {
	res, err := md.ocrUpload(ctx, up)
	if err != nil {
		return core.OCRResult{}, &imageError{err}
	}
	if strings.TrimSpace(res.Text) == "" {
		res.Text = noTextFound
	}
	return res, nil
}

func (md *media) ocrUpload(ctx context.Context, up *upload) (core.OCRResult, error) {
	c := up.content
	max := md.backend.OCRMaxBytes()
	switch mime := mimeOf(c); {
	case max <= 0:
		return core.OCRResult{}, errNoOCR
	case c.MsgType == event.MsgFile && mime != "" && !strings.HasPrefix(mime, "image/"):
		// Refused before downloading: the sender's client says what it is.
		return core.OCRResult{}, core.Errorf(core.KindInvalid, "the file is %s, not an image", mime)
	}
	data, err := md.downloadMedia(ctx, c, max)
	if err != nil {
		return core.OCRResult{}, err
	}
	return md.backend.OCR(ctx, data)
}

// imageFailureText is the notice for an image that could not be read.
func imageFailureText(err error) string {
	msg := strings.TrimSuffix(core.SafeMessage(err), ".")
	switch core.KindOf(err) {
	case core.KindTooLarge:
		return "the image is too large for me to read (" + msg + ")."
	case core.KindInvalid:
		return "I can only read text in images, and I could not read this one (" + msg + ")."
	case core.KindUnavailable:
		return "reading text in images is not available right now (" + msg + ")."
	case core.KindNotFound:
		return "the homeserver no longer has that image."
	case core.KindUnauthorized:
		return "the bridge is not allowed to use Ada's API (check API_KEY)."
	case core.KindCanceled:
		if errors.Is(err, context.DeadlineExceeded) {
			return "reading the image took too long, so I gave up. Please try again."
		}
		return "the request was cancelled. Please try again."
	}
	return "I could not read the text in that image (" + msg + ")."
}

var errNotUpload = errors.New("not an image or file message")

// fetchUpload gets a message from the homeserver, decrypting it in an
// encrypted room, and returns it if it is an upload.
func (md *media) fetchUpload(ctx context.Context, room id.RoomID, eventID id.EventID) (*upload, error) {
	evt, c, err := fetchMessage(ctx, md.mx, room, eventID)
	switch {
	case errors.Is(err, errNotMessage):
		return nil, errNotUpload
	case err != nil:
		return nil, err
	case !isUpload(c):
		return nil, errNotUpload
	}
	return &upload{id: evt.ID, content: c}, nil
}

// downloadMedia fetches an upload's media through the homeserver's
// (authenticated) media API and decrypts it when the message carries an
// encrypted `file`. At most max bytes are read: mautrix's DownloadBytes
// reads without a bound, so the body is capped here, and a declared
// Content-Length over the limit is refused before reading. AES-CTR keeps
// the size, so the cap on the ciphertext is the cap on the image.
func (md *media) downloadMedia(ctx context.Context, c *event.MessageEventContent, max int64) ([]byte, error) {
	if c.Info != nil && int64(c.Info.Size) > max {
		return nil, overLimit(max) // refused before downloading: the sender's client gave the size
	}
	raw := c.URL
	if c.File != nil {
		raw = c.File.URL
		if err := c.File.PrepareForDecryption(); err != nil {
			return nil, core.Wrap(core.KindInvalid, err, "its encryption details are not valid")
		}
	}
	uri, err := raw.Parse()
	if err == nil && uri.IsEmpty() {
		err = errors.New("no media URL")
	}
	if err != nil {
		return nil, core.Wrap(core.KindInvalid, err, "the message has no valid media address")
	}
	resp, err := md.mx.cli.Download(ctx, uri)
	if err != nil {
		return nil, downloadError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > max {
		return nil, overLimit(max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	switch {
	case err != nil:
		return nil, downloadError(ctx, err)
	case int64(len(data)) > max:
		return nil, overLimit(max)
	}
	if c.File != nil {
		if err := c.File.DecryptInPlace(data); err != nil {
			return nil, core.Wrap(core.KindInvalid, err, "it could not be decrypted")
		}
	}
	return data, nil
}

// downloadError says in plain words why the media could not be fetched.
func downloadError(ctx context.Context, err error) error {
	var he mautrix.HTTPError
	switch {
	case ctx.Err() != nil:
		return core.Wrap(core.KindCanceled, err, "the download was cancelled")
	case errors.As(err, &he) && he.Response != nil && he.Response.StatusCode == http.StatusNotFound:
		return core.Wrap(core.KindNotFound, err, "the image is not on the homeserver")
	}
	return core.Wrap(core.KindUpstream, err, "it could not be downloaded from the homeserver")
}

// overLimit names only the limit: a rounded size next to it ("32 KiB; the
// limit is 32 KiB") would read as nonsense.
func overLimit(max int64) error {
	return core.Errorf(core.KindTooLarge, "it is larger than the limit of %s", byteSize(max))
}

// byteSize writes a limit the way operators set it (OCR_MAX_BYTES).
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}
