package bot

import (
	"context"
	"errors"
	"strings"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// imageError marks a failure to read a question's image, so that the
// notice talks about the image, not about the language model.
type imageError struct{ err error }

func (e *imageError) Error() string { return "read image: " + e.err.Error() }
func (e *imageError) Unwrap() error { return e.err }

// noTextFound stands in for the text of an image without any, so the model
// knows an image was read rather than seeing no image at all (the prompt
// leaves out empty sections).
const noTextFound = "(No text could be read in this image.)"

// readImage downloads an upload's media (decrypting it in encrypted rooms),
// reads it with the backend's OCR, and lets the bytes go: they are never
// written anywhere. Every error is an *imageError.
func (b *Bot) readImage(ctx context.Context, up *upload) (core.OCRResult, error) {
	res, err := b.ocrUpload(ctx, up)
	if err != nil {
		return core.OCRResult{}, &imageError{err}
	}
	if strings.TrimSpace(res.Text) == "" {
		res.Text = noTextFound
	}
	return res, nil
}

func (b *Bot) ocrUpload(ctx context.Context, up *upload) (core.OCRResult, error) {
	c := up.content
	max := b.deps.Backend.OCRMaxBytes()
	switch mime := mimeOf(c); {
	case max <= 0:
		return core.OCRResult{}, errNoOCR
	case c.MsgType == event.MsgFile && mime != "" && !strings.HasPrefix(mime, "image/"):
		// Refused before downloading: the sender's client says what it is.
		return core.OCRResult{}, core.Errorf(core.KindInvalid, "the file is %s, not an image", mime)
	case c.Info != nil && int64(c.Info.Size) > max:
		return core.OCRResult{}, overLimit(max)
	}
	data, err := b.downloadMedia(ctx, c, max)
	if err != nil {
		return core.OCRResult{}, err
	}
	return b.deps.Backend.OCR(ctx, data)
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
