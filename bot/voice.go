package bot

import (
	"context"
	"strings"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// Voice and audio messages (m.audio, Element's voice messages in Ogg/Opus)
// are transcribed and then handled as if the member had typed the
// transcript: the activation rules apply to it, and the reply quotes it.

// Transcriber turns speech into text: the client of an OpenAI-compatible
// /v1/audio/transcriptions server (core/specialists/transcribe). Errors are
// core.Errors with client-safe messages.
type Transcriber interface {
	Transcribe(ctx context.Context, audio []byte, name, mimeType string) (string, error)
	// MaxBytes is the largest audio downloaded and sent (AUDIO_MAX_BYTES).
	MaxBytes() int64
}

// voiceNotEnabled answers a voice message in a direct chat when no
// speech-to-text server is set up (TRANSCRIBE_URL).
const voiceNotEnabled = "🎙️ I cannot listen to voice messages here: voice is not enabled on this server. Please type your question."

// handleVoice handles a live m.audio message from an allowed member, in the
// room's job. Without a transcriber only a direct chat gets a plain note;
// in other rooms voice is ignored. Download and transcription are bounded
// by the answer's timeout (REQUEST_TIMEOUT_SECONDS) and run beside the
// room's queue; heard goes on with the transcript.
func (h *messageHandler) handleVoice(ctx context.Context, evt *event.Event, c *event.MessageEventContent, backlog bool) error {
	if backlog || evt.Sender == h.mx.cli.UserID || !h.policy.userAllowed(evt.Sender) {
		return nil
	}
	h.observe.BotEvent("voice")
	isDM := h.respondToDMs && h.mx.isDM(ctx, evt.RoomID)
	log := logFrom(ctx, h.log)
	if h.stt == nil {
		if isDM {
			if _, err := h.mx.sendNotice(ctx, evt, voiceNotEnabled); err != nil {
				log.Warn("could not post the voice notice", "error", err)
			}
		}
		return nil
	}
	// Only a voice message meant for Ada hears about a problem: in a room,
	// one that mentions her (the keyword is only known from the transcript).
	addressed := isDM || h.act.check(captionOnly(c), false) != triggerNone
	// Listening takes a while (a download and a remote call, bounded by the
	// answer's timeout): it runs beside the room's queue, so that commands
	// and other messages go on meanwhile, and what was heard comes back to
	// the room's queue as a job of its own.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(h.mx.runCtx, cancel)
	h.answers.queue.Spawn(func() {
		defer cancel()
		defer stop()
		defer h.answers.recoverBackground(lctx, "voice")
		transcript, err := h.transcribe(lctx, c)
		h.answers.queue.Enqueue(evt.RoomID, roomqueue.Job{Name: "voice", Ctx: context.WithoutCancel(ctx),
			Run:     func(ctx context.Context) error { return h.heard(ctx, evt, c, transcript, err, isDM, addressed) },
			OnPanic: func(ctx context.Context) { h.mx.react(ctx, evt.RoomID, evt.ID, reactFailed) },
		})
	})
	return nil
}

// heard handles a voice message once it was transcribed (or failed to be),
// in the room's job: as if the member had typed the transcript.
func (h *messageHandler) heard(ctx context.Context, evt *event.Event, c *event.MessageEventContent, transcript string, err error, isDM, addressed bool) error {
	log := logFrom(ctx, h.log)
	if err != nil {
		log.Warn("could not transcribe a voice message", "error", err, "kind", core.KindOf(err).String())
		if addressed {
			h.mx.fail(ctx, evt, voiceFailureText(err))
		}
		return nil
	}
	if transcript == "" {
		if addressed {
			h.mx.fail(ctx, evt, "I could not hear any words in your voice message.")
		}
		return nil
	}
	s, err := h.bridge.Room(ctx, evt.RoomID.String(), core.NewConversationID(), h.now())
	if err != nil {
		return err
	}
	// The transcript is the message as the room's context knows it; in
	// privacy mode it stays in memory only (window.remember).
	h.window.remember(ctx, s, storage.BridgeMessage{EventID: evt.ID.String(), Sender: evt.Sender.String(),
		Text: "[voice message] " + transcript, Time: sentAt(evt, h.now())})
	spoken := &event.MessageEventContent{MsgType: event.MsgText, Body: transcript, Mentions: c.Mentions}
	trig := h.trigger(ctx, evt, spoken, isDM)
	if trig == triggerNone {
		log.Debug("not answering a voice message: no mention, DM or keyword in it")
		return nil
	}
	log.Info("answering a voice message", "trigger", string(trig))
	return h.answers.answer(ctx, evt, question{prompt: h.media.promptText(transcript), quote: transcript}, s)
}

// transcribe downloads the audio (decrypted in an encrypted room) within
// AUDIO_MAX_BYTES and returns what was said.
func (h *messageHandler) transcribe(ctx context.Context, c *event.MessageEventContent) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, h.answers.timeout)
	defer cancel()
	audio, err := h.media.downloadMedia(ctx, c, h.stt.MaxBytes())
	if err != nil {
		return "", err
	}
	name := c.FileName
	if name == "" {
		name = c.Body
	}
	return h.stt.Transcribe(ctx, audio, name, mimeOf(c))
}

// voiceFailureText says in plain words why a voice message was not heard.
func voiceFailureText(err error) string {
	msg := strings.TrimSuffix(core.SafeMessage(err), ".")
	switch core.KindOf(err) {
	case core.KindTooLarge:
		return "your voice message is too long for me (" + msg + ")."
	case core.KindCanceled:
		return "listening to your voice message took too long. Please try again."
	}
	return "I could not listen to your voice message (" + msg + ")."
}

// quoted is the answer as posted for a question that was spoken: the
// transcript quoted first, so the member sees what Ada heard.
func (q question) quoted(answer string) string {
	if q.quote == "" {
		return answer
	}
	lines := strings.Split(strings.TrimSpace(q.quote), "\n")
	return "> 🎙️ " + strings.Join(lines, "\n> ") + "\n\n" + answer
}
