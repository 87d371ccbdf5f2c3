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
	// queue is the room queue and lines the rooms' answer lines (both set
	// by Run; answer_line.go): the ends of answers run beside the room's
	// jobs, and questions wait for the model in lines.
	queue *roomqueue.Queue
	lines *roomqueue.Queue
	// streams shows answers as they are written, where they are streamed.
	streams *streams
	// health is how the latest chats went (!ada status).
	health *chatHealth
	// settings are the rooms' own settings (settings.go), quota their
	// quotas (quota.go).
	settings *roomSettings
	quota    *quotas
	// waitNotices bounds the "still answering an earlier question" notices.
	waitNotices busyNotices
	// inFlight are the answers being made, which a redaction of their
	// question stops (answer_takeback.go).
	inFlight answersInFlight
	observe  Observer
	now      func() time.Time
	log      *slog.Logger
}

// Typing notices last typingTimeout and are renewed every typingRenew while
// the answer is being made.
const (
	typingTimeout = 30 * time.Second
	typingRenew   = 20 * time.Second
)

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

// request builds the chat request, in the room's job: the room's context
// is read there; members are the room's members as they are now, labels
// their names; loc is the room's time zone (the times a question mentions
// are its days there).
func (a *answerer) request(ctx context.Context, evt *event.Event, s storage.BridgeRoom, prompt string, asker core.Speaker, members core.Roster, labels core.Labels,
	loc *time.Location) core.ChatRequest {
	// The room is the memory scope (entity:<room id>): the chat retrieves
	// the room's memories and the global ones, and what is learned here stays
	// here. The speaker is named, so that the model knows who asks and the
	// automatic memories name the member, never "the user".
	return core.ChatRequest{
		Prompt:          prompt,
		ConversationID:  s.ConversationID,
		Entity:          evt.RoomID.String(),
		Speaker:         &asker,
		UserTimestamp:   sentAt(evt, a.now()),
		Location:        loc,
		Store:           a.window.storageOn(s),
		ContextMessages: a.window.contextFor(ctx, s, evt.ID, labels, a.threadEvents(ctx, evt)),
		RoomID:          evt.RoomID.String(),
		EventID:         evt.ID.String(),
		Members:         members,
	}
}

// ask reads the question's image, if any, and consumes the event stream.
// Only a stream that ended with done and a non-blank answer counts.
func (a *answerer) ask(ctx context.Context, p *pendingAnswer) (core.ChatResult, error) {
	req := p.req
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
	if req.OCRContext, err = a.media.imageContext(ctx, p.q); err != nil {
		return core.ChatResult{}, err
	}
	var done *core.ChatResult
	st := p.stream
	if st != nil {
		defer st.end() // post makes the final edit
	}
	res, err := a.backend.Chat(ctx, req, func(ev core.Event) error {
		// Without streaming, tokens and thinking are not shown: one complete
		// reply is posted at the end. A failure comes back as Chat's error,
		// not as an event.
		if ev.Type == core.EventDone {
			done = ev.Done
		}
		if st != nil {
			return st.emit(ev)
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
		if rateLimited(err) {
			return rateLimitedText
		}
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
