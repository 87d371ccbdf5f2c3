// Package transcribe turns speech into text through an OpenAI-compatible
// speech-to-text server (POST /v1/audio/transcriptions, multipart/form-data:
// whisper.cpp's server, faster-whisper servers, OpenAI). The Matrix bridge
// uses it for voice messages. It imports only core.
package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// Options configure the client.
type Options struct {
	// BaseURL is the server's address, without /v1/audio/transcriptions
	// (TRANSCRIBE_URL); a trailing /v1 is accepted too.
	BaseURL string
	// Model is the form's model field (TRANSCRIBE_MODEL).
	Model string
	// APIKey, if set, is sent as a bearer token (TRANSCRIBE_API_KEY).
	APIKey string
	// MaxBytes is the largest audio sent (AUDIO_MAX_BYTES).
	MaxBytes int64
	// HTTPClient is the client to use; nil = http.DefaultClient.
	HTTPClient *http.Client
}

// Client is the speech-to-text client.
type Client struct {
	opts Options
	url  string
}

// New returns a client of the server at opts.BaseURL.
func New(opts Options) *Client {
	base := strings.TrimSuffix(strings.TrimRight(opts.BaseURL, "/"), "/v1")
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	return &Client{opts: opts, url: base + "/v1/audio/transcriptions"}
}

// MaxBytes is the largest audio Transcribe accepts.
func (c *Client) MaxBytes() int64 { return c.opts.MaxBytes }

// service words transport and status failures as the other specialists
// do: a server too slow for the caller's deadline is a failing service
// (KindUpstream), only a caller that left is KindCanceled.
var service = remote.Service{
	Failed:   "transcription failed",
	Canceled: "the transcription was cancelled",
	Name:     "the speech-to-text service",
}

// maxResponseBytes bounds the server's answer: a transcript of the largest
// audio is far smaller.
const maxResponseBytes = 1 << 20

// Transcribe returns the text spoken in audio, a file called name of type
// mimeType (e.g. audio/ogg). Errors are core.Errors with client-safe
// messages: KindTooLarge, KindInvalid (the server refused the audio),
// KindUpstream (the server failed or gave no text), KindCanceled.
func (c *Client) Transcribe(ctx context.Context, audio []byte, name, mimeType string) (string, error) {
	if int64(len(audio)) > c.opts.MaxBytes {
		return "", core.Errorf(core.KindTooLarge, "the audio is larger than the limit of %d bytes", c.opts.MaxBytes)
	}
	body, contentType, err := c.form(audio, name, mimeType)
	if err != nil {
		return "", core.Wrap(core.KindInternal, err, "could not build the transcription request")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, body)
	if err != nil {
		return "", core.Wrap(core.KindInternal, err, "could not build the transcription request")
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return "", service.Transport(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return "", service.Transport(ctx, err)
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnsupportedMediaType:
		return "", core.Errorf(core.KindInvalid, "the speech-to-text service could not read the audio (HTTP %d)", resp.StatusCode)
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		return "", core.Errorf(core.KindTooLarge, "the audio is too large for the speech-to-text service")
	case resp.StatusCode != http.StatusOK:
		return "", service.Status(resp.StatusCode)
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Text == nil {
		return "", core.Errorf(core.KindUpstream, "the speech-to-text service gave no transcript")
	}
	return strings.TrimSpace(*out.Text), nil
}

// form is the multipart body: the file, the model, and response_format
// json (the one every compatible server supports).
func (c *Client) form(audio []byte, name, mimeType string) (io.Reader, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, safeName(name)))
	h.Set("Content-Type", mimeType)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(audio); err != nil {
		return nil, "", err
	}
	for k, v := range map[string]string{"model": c.opts.Model, "response_format": "json"} {
		if err := w.WriteField(k, v); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &b, w.FormDataContentType(), nil
}

// safeName keeps a file name that servers use only to guess the format:
// its extension matters, the rest (a member's choice) is not sent.
func safeName(name string) string {
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 && len(name)-i <= 6 {
		ext = strings.ToLower(name[i:])
	}
	for _, r := range ext[min(1, len(ext)):] {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return "audio"
		}
	}
	return "audio" + ext
}
