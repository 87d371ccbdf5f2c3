package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// answerer makes the answer to one question: it asks the backend (with the
// room's context and the question's image), posts the reply, shows the
// state with reactions and the typing notice, and records what the answer
// stored so that a redaction can delete it.
type answerer struct {
	mx      *matrix
	backend Backend
	window  *window
	media   *media
	bridge  *storage.Bridge
	rooms   *roomStates
	// slots bounds the answers being made at once (BOT_WORKERS).
	slots chan struct{}
	tails roomTails
	// timeout bounds one answer (REQUEST_TIMEOUT_SECONDS).
	timeout time.Duration
	// disp is set by Run: the ends of answers run beside the room's jobs.
	queue   *roomqueue.Queue
	observe Observer
	now     func() time.Time
	log     *slog.Logger
}

// Typing notices last typingTimeout and are renewed every typingRenew while
// the answer is being made.
const (
	typingTimeout = 30 * time.Second
	typingRenew   = 20 * time.Second
)

// answer is the whole life of one question: 🧠 at once, a typing notice
// while the backend works, the event stream consumed here, then one complete
// reply and ✅; or ❌ and a plain notice. Nothing partial is ever posted.
// The 🧠 reaction goes out as soon as the message is accepted, before an
// answer slot is free, and the reply waits for it, so members always see 🧠
// first. ✅ and the end of typing go out after the room's job (afterAnswer).
func (a *answerer) answer(ctx context.Context, evt *event.Event, q question, s storage.BridgeRoom) error {
	log := logFrom(ctx, a.log)
	tr := traceFrom(ctx)
	tr.accepted = time.Now()
	reacted := a.background(ctx, "🧠 reaction", func() { a.mx.react(ctx, evt.RoomID, evt.ID, reactThinking); tr.reacted = time.Now() })
	stopTyping := a.typing(ctx, evt.RoomID)
	// Who asks, looked up once: the model and the memories name them, and
	// !ada why says whose question it was.
	asker := core.Speaker{Name: a.mx.displayName(ctx, evt.RoomID, evt.Sender), UserID: evt.Sender.String()}
	res, err := a.ask(ctx, evt, q, s, asker)
	<-reacted
	if !tr.reacted.IsZero() && !tr.received.IsZero() {
		a.observe.BotReaction(tr.reacted.Sub(tr.received))
	}
	if err != nil {
		a.observe.BotAnswer(err)
		stopTyping(ctx)
		log.Warn("answer failed", "error", err, "kind", core.KindOf(err).String())
		a.mx.fail(ctx, evt, failureText(err))
		return nil
	}
	var first id.EventID
	for i, c := range replyContents(res.Response, evt) {
		sent, err := a.mx.sendContent(ctx, evt.RoomID, c)
		if err != nil {
			a.observe.BotAnswer(err)
			stopTyping(ctx)
			log.Error("could not post the reply", "error", err)
			a.mx.fail(ctx, evt, "I had an answer but could not post it here.")
			return nil
		}
		if i == 0 {
			first = sent
		}
	}
	tr.replied = time.Now()
	a.observe.BotAnswer(nil)
	// The answer is part of the room's context from now on; it is recorded
	// here rather than from its echo in /sync, which comes later.
	a.window.remember(ctx, s, storage.BridgeMessage{EventID: first.String(), Sender: a.mx.cli.UserID.String(), Text: res.Response, Time: a.now()})
	a.recordAnswer(ctx, evt, q.prompt, asker.Name, first, res)
	// ✅ and the end of the typing notice finish the answer, but need not
	// hold the room: its next message gets 🧠 without waiting for them (they
	// are two homeserver round trips, slow when the homeserver is busy).
	// They are independent of each other, so both go at once.
	a.afterAnswer(ctx, evt.RoomID, func(ctx context.Context) {
		typingStopped := a.background(ctx, "end of typing", func() { stopTyping(ctx) })
		a.mx.react(ctx, evt.RoomID, evt.ID, reactDone)
		tr.done = time.Now()
		<-typingStopped
		log.Info("answered", append([]any{"conversation_id", res.ConversationID,
			"chars", len(res.Response)}, tr.attrs()...)...)
	})
	return nil
}

// background runs fn in a goroutine and returns a channel closed when it is
// done; callers always wait for it, so no goroutine outlives its job. A
// panic in fn is logged and goes no further: the room queue's recover only
// covers the job's own goroutine, and a panic here would end the process.
func (a *answerer) background(ctx context.Context, name string, fn func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer a.recoverBackground(ctx, name)
		fn()
	}()
	return done
}

// recoverBackground logs a panic of a job's helper goroutine with its stack.
func (a *answerer) recoverBackground(ctx context.Context, name string) {
	if p := recover(); p != nil {
		logFrom(ctx, a.log).Error("panic in bot background work", "work", name, "panic", fmt.Sprint(p),
			"stack", string(debug.Stack()))
	}
}

// ask reads the question's image, if any, builds the chat request and
// consumes the event stream. Only a stream that ended with done and a
// non-blank answer counts.
func (a *answerer) ask(ctx context.Context, evt *event.Event, q question, s storage.BridgeRoom, asker core.Speaker) (core.ChatResult, error) {
	// The room is the memory scope (entity:<room id>): the chat retrieves
	// the room's memories and the global ones, and what is learned here stays
	// here. The speaker is named, so that the model knows who asks and the
	// automatic memories name the member, never "the user".
	req := core.ChatRequest{
		Prompt:          q.prompt,
		ConversationID:  s.ConversationID,
		Entity:          evt.RoomID.String(),
		Speaker:         &asker,
		UserTimestamp:   time.UnixMilli(evt.Timestamp),
		Store:           a.window.storageOn(s),
		ContextMessages: a.window.contextFor(ctx, s, evt.ID),
		RoomID:          evt.RoomID.String(),
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	// BOT_WORKERS bounds how many answers are being made at once.
	select {
	case a.slots <- struct{}{}:
		defer func() { <-a.slots }()
	case <-ctx.Done():
		return core.ChatResult{}, core.Wrap(core.KindCanceled, ctx.Err(), "request cancelled")
	}
	// OCR runs inside the slot too: tesseract is the heaviest work here.
	var err error
	if req.OCRContext, err = a.media.imageContext(ctx, evt.RoomID, q); err != nil {
		return core.ChatResult{}, err
	}
	var done *core.ChatResult
	res, err := a.backend.Chat(ctx, req, func(ev core.Event) error {
		// Tokens and thinking are not shown: one complete reply is posted
		// at the end. A failure comes back as Chat's error, not as an event.
		if ev.Type == core.EventDone {
			done = ev.Done
		}
		return nil
	})
	switch {
	case err != nil:
		return core.ChatResult{}, err
	case done == nil:
		return core.ChatResult{}, core.Errorf(core.KindUpstream, "the answer stream ended before it was complete")
	case strings.TrimSpace(res.Response) == "":
		return core.ChatResult{}, core.Errorf(core.KindUpstream, "the language model gave an empty answer")
	}
	return res, nil
}

// failureText turns a backend error into a short sentence for the room.
// Only client-safe messages are shown (core.SafeMessage).
func failureText(err error) string {
	if ie := (*imageError)(nil); errors.As(err, &ie) {
		return imageFailureText(ie.err)
	}
	msg := strings.TrimSuffix(core.SafeMessage(err), ".")
	switch core.KindOf(err) {
	case core.KindUpstream:
		return "the language model did not give an answer (" + msg + "). Please try again later."
	case core.KindCanceled:
		// The bridge cancels an answer only when it stops, and then posts
		// nothing: a cancelled answer here is one that took too long, in
		// this process (BOT chat timeout) or in the API (REQUEST_TIMEOUT).
		return "the answer took too long, so I gave up. Please try again."
	case core.KindUnavailable:
		return "Ada's memory store is unavailable right now (" + msg + ")."
	case core.KindInvalid, core.KindTooLarge:
		return "I could not use that message (" + msg + ")."
	case core.KindUnauthorized:
		return "the bridge is not allowed to use Ada's API (check API_KEY)."
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the answer took too long, so I gave up. Please try again."
	}
	return "something went wrong on my side; it has been logged."
}

// typing shows the bot as typing in room until the returned func is
// called; stop's context is the one its final "not typing" is sent with
// (the answer's tail may outlive the job's context). The first notice waits
// for the end of the room's previous typing notice, if that is still on its
// way, so that it cannot cancel this one.
func (a *answerer) typing(ctx context.Context, room id.RoomID) (stop func(ctx context.Context)) {
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	previous := a.tails.latest(room)
	go func() {
		defer close(done)
		defer a.recoverBackground(ctx, "typing")
		if previous != nil {
			select {
			case <-previous:
			case <-tctx.Done():
				return
			}
		}
		t := time.NewTicker(typingRenew)
		defer t.Stop()
		for {
			if _, err := a.mx.cli.UserTyping(tctx, room, true, typingTimeout); err != nil && tctx.Err() == nil {
				logFrom(ctx, a.log).Debug("typing notice failed", "error", err)
			}
			select {
			case <-tctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func(ctx context.Context) {
		cancel()
		<-done
		if ctx.Err() == nil {
			_, _ = a.mx.cli.UserTyping(ctx, room, false, 0)
		}
	}
}

// roomTails are the ends of answers still being sent after their job has
// returned (✅ and the end of the typing notice; see afterAnswer), newest
// per room. A room's next typing notice waits for the previous end, so that
// a late "not typing" can never cancel it. Safe from any goroutine.
type roomTails struct {
	mu sync.Mutex
	m  map[id.RoomID]chan struct{}
}

// latest is closed when the room's newest tail has finished; nil if none runs.
func (t *roomTails) latest(room id.RoomID) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[room]; ok {
		return c
	}
	return nil
}

// start makes a new tail the room's newest; call done when it has finished.
func (t *roomTails) start(room id.RoomID) (done func()) {
	c := make(chan struct{})
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[id.RoomID]chan struct{})
	}
	t.m[room] = c
	t.mu.Unlock()
	return func() {
		close(c)
		t.mu.Lock()
		if t.m[room] == c {
			delete(t.m, room)
		}
		t.mu.Unlock()
	}
}

// afterAnswer runs fn, the end of an answer, once the room's job has handed
// it over: in a goroutine the room queue waits for when the bot stops, with
// a context that ends with the bot rather than with the job. The room's
// next job can start at once; members see its 🧠 without waiting for the
// previous answer's ✅.
func (a *answerer) afterAnswer(ctx context.Context, room id.RoomID, fn func(ctx context.Context)) {
	done := a.tails.start(room)
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(a.mx.runCtx, cancel)
	a.queue.Spawn(func() {
		defer done()
		defer cancel()
		defer stop()
		defer a.recoverBackground(tctx, "end of answer")
		fn(tctx)
	})
}
