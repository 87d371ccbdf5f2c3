package bot

import (
	"context"
	"errors"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// A question goes through three steps, so that a slow or hung model holds
// only the questions behind it, never the room (issue 27):
//
//  1. answer, in the room's job: 🧠, the request with the room's context,
//     and the question joins the room's answer line (answerer.lines). A
//     question that has to wait there says so.
//  2. think, in the answer line, one question at a time per room: the
//     typing notice, OCR and the backend's answer. Commands, uploads and
//     other messages of the room go on meanwhile in the room's queue.
//  3. post, back in the room's queue: the reply (or ❌ and a notice), the
//     room's context and `!ada why`. The line waits for it, so that answers
//     come in the order of their questions.
//
// When the bridge stops, a question not yet answered gets ❌ and a notice
// (interrupted): it is not answered after the restart.

// pendingAnswer is one accepted question on its way through the steps.
type pendingAnswer struct {
	// ctx is the message's context (logger, trace), outliving its job.
	ctx     context.Context
	evt     *event.Event
	q       question
	s       storage.BridgeRoom
	asker   core.Speaker
	req     core.ChatRequest
	reacted <-chan struct{} // closed once 🧠 is sent
	// settings are the room's settings as they were when it was asked
	// (settings.go); usage is its count against the quotas (quota.go).
	settings answerSettings
	usage    int64
	// stream shows the answer as it is written; nil when it is posted whole.
	stream *streamer
	// taking says whether the question was redacted meanwhile, and stops
	// the model then (answer_takeback.go); finished ends its registration.
	taking   *takeBack
	finished func()
}

// waitingNotice tells a member that their question waits behind another.
const waitingNotice = "⏳ I am still answering an earlier question here; I will answer this one after it."

// answer accepts a question in the room's job: 🧠 at once, the request
// built from the room's context, and the question handed to the room's
// answer line. Nothing partial is ever posted: the reply comes whole, then
// ✅; or ❌ and a plain notice.
func (a *answerer) answer(ctx context.Context, evt *event.Event, q question, s storage.BridgeRoom) error {
	usage, admitted := a.quota.admit(ctx, evt)
	if !admitted {
		return nil // over a quota: one notice said so (quota.go)
	}
	tr := traceFrom(ctx)
	tr.accepted = time.Now()
	p := &pendingAnswer{ctx: context.WithoutCancel(ctx), evt: evt, q: q, s: s, usage: usage}
	p.taking, p.finished = a.inFlight.start(evt)
	// 🧠 goes in the background, held so that a take-back waits for it
	// and takes it too; a question taken back already gets none.
	reacting, _ := p.taking.hold()
	p.reacted = a.background(p.ctx, "🧠 reaction", func() {
		if reacting == nil {
			return
		}
		defer reacting()
		a.reactOn(p.ctx, p, reactThinking)
		tr.reacted = time.Now()
	})
	// Who asks, looked up once: the model and the memories name them, and
	// !ada why says whose question it was.
	// The room's members are read once for all of it (roster.go).
	members := a.mx.roster(ctx, evt.RoomID)
	labels := members.Labels()
	p.asker = core.Speaker{Name: a.mx.labelIn(ctx, labels, evt.RoomID, evt.Sender), UserID: evt.Sender.String()}
	// The room's settings are read once for all of it, its time zone too.
	p.settings = a.settings.forAnswer(ctx, evt.RoomID)
	p.req = a.request(ctx, evt, s, q.prompt, p.asker, members, labels, p.settings.location)
	p.settings.applyTo(&p.req)
	p.req.ReplyChain = a.replyChain(ctx, evt, p.settings.context, labels)
	waiting := a.lines.Pending(evt.RoomID) > 0
	queued := a.lines.Enqueue(evt.RoomID, roomqueue.Job{
		Name: "answer", Ctx: p.ctx,
		Run:     func(ctx context.Context) error { a.think(ctx, p); return nil },
		OnPanic: func(ctx context.Context) { a.mx.react(ctx, evt.RoomID, evt.ID, reactFailed) },
		OnStop:  func(ctx context.Context) { a.interrupted(ctx, p) },
	})
	switch {
	case !queued && a.mx.runCtx.Err() != nil:
		sctx, cancel := context.WithTimeout(p.ctx, roomqueue.StopReportTime)
		defer cancel()
		a.interrupted(sctx, p)
	case !queued:
		defer p.finished()
		<-p.reacted
		a.failOn(ctx, p, "I am too busy in this room right now. Please send it again in a minute.")
	case waiting && a.waitNotices.dueFor(evt.RoomID, evt.Sender, a.now()):
		notice, err := a.mx.sendNotice(ctx, evt, waitingNotice)
		if err != nil {
			logFrom(ctx, a.log).Warn("could not post the waiting notice", "error", err)
		}
		linkReplies(ctx, a.bridge, a.log, evt, []id.EventID{notice}, a.now())
	}
	return nil
}

// think makes the answer in the room's answer line, then hands it to the
// room's queue to be posted and waits until it is, so that the next
// question of the room starts after it.
func (a *answerer) think(ctx context.Context, p *pendingAnswer) {
	defer p.finished()
	if p.taking.takenBack() { // redacted while it waited in the line
		a.takenBack(ctx, p, nil)
		return
	}
	room := p.evt.RoomID
	stopTyping := a.typing(ctx, room)
	p.stream = a.streams.start(ctx, p, p.q.quoted(""))
	// Only the model stops when the question is taken back: a send under
	// way ends, so that what it posted is linked and taken back too.
	gen, stopGen := p.taking.generating(ctx)
	res, err := a.ask(gen, p)
	stopGen()
	if p.taking.takenBack() {
		a.takenBack(ctx, p, stopTyping)
		return
	}
	if a.mx.runCtx.Err() != nil {
		sctx, cancel := context.WithTimeout(p.ctx, roomqueue.StopReportTime)
		defer cancel()
		a.interrupted(sctx, p)
		return
	}
	if ie := (*imageError)(nil); !errors.As(err, &ie) {
		a.health.record(a.now(), err)
	}
	posted := make(chan struct{})
	queued := a.queue.Enqueue(room, roomqueue.Job{
		Name: "reply", Ctx: p.ctx,
		Run: func(ctx context.Context) error {
			defer close(posted)
			a.post(ctx, p, res, err, stopTyping)
			return nil
		},
		OnPanic: func(ctx context.Context) { a.mx.react(ctx, room, p.evt.ID, reactFailed) },
		OnStop: func(ctx context.Context) {
			defer close(posted)
			stopTyping(ctx)
			a.interrupted(ctx, p)
		},
	})
	if !queued {
		stopTyping(ctx)
		a.failOn(ctx, p, "I had an answer but could not post it here.")
		return
	}
	select {
	case <-posted:
	case <-ctx.Done():
	}
}

// post ends the answer in the room's job: the reply and ✅, or ❌ and a
// plain notice; the answer becomes part of the room's context.
func (a *answerer) post(ctx context.Context, p *pendingAnswer, res core.ChatResult, err error, stopTyping func(context.Context)) {
	evt, log, tr := p.evt, logFrom(ctx, a.log), traceFrom(ctx)
	if p.taking.takenBack() { // redacted after the model was done: the urgent cascade ran first
		a.takenBack(ctx, p, stopTyping)
		return
	}
	a.quota.settle(ctx, p.usage, res.Usage.PromptTokens+res.Usage.CompletionTokens, err != nil)
	<-p.reacted // members always see 🧠 first
	if !tr.reacted.IsZero() && !tr.received.IsZero() {
		a.observe.BotReaction(tr.reacted.Sub(tr.received))
	}
	if err != nil {
		a.media.dropUnreadable(evt.RoomID, p.q, err)
		a.observe.BotAnswer(err)
		stopTyping(ctx)
		log.Warn("answer failed", "error", err, "kind", core.KindOf(err).String())
		a.failAnswer(ctx, p, failureText(err))
		return
	}
	sent, err := a.sendReply(ctx, p, p.q.quoted(res.Response))
	if err != nil {
		linkReplies(ctx, a.bridge, a.log, evt, sent, a.now())
		a.observe.BotAnswer(err)
		stopTyping(ctx)
		log.Error("could not post the reply", "error", err)
		a.failAnswer(ctx, p, "I had an answer but could not post it here.")
		return
	}
	first := sent[0]
	// A redaction of the question takes the answer with it.
	linkReplies(ctx, a.bridge, a.log, evt, sent, a.now())
	tr.replied = time.Now()
	a.observe.BotAnswer(nil)
	// The answer is part of the room's context from now on; it is recorded
	// here rather than from its echo in /sync, which comes later.
	a.window.remember(ctx, p.s, storage.BridgeMessage{EventID: first.String(), Sender: a.mx.cli.UserID.String(), Text: res.Response, Time: a.now()})
	a.recordAnswer(ctx, evt, p.q.prompt, p.asker.Name, first, res)
	// ✅ and the end of the typing notice finish the answer, but need not
	// hold the room: its next message gets 🧠 without waiting for them (they
	// are two homeserver round trips, slow when the homeserver is busy).
	// They are independent of each other, so both go at once.
	// ✅ is held from here, while the answer is still registered, so that
	// an edit or a forget me of its asker meanwhile waits for it.
	reacting, held := p.taking.hold()
	a.afterAnswer(ctx, evt.RoomID, func(ctx context.Context) {
		typingStopped := a.background(ctx, "end of typing", func() { stopTyping(ctx) })
		if held {
			func() {
				defer reacting()
				if !p.taking.takenBack() {
					a.reactOn(ctx, p, reactDone)
				}
			}()
		}
		tr.done = time.Now()
		<-typingStopped
		log.Info("answered", append([]any{"conversation_id", res.ConversationID,
			"chars", len(res.Response)}, tr.attrs()...)...)
	})
}

// sendReply posts the answer: the final edit of the streamed reply, or
// the whole reply. It returns the events sent, also on failure.
func (a *answerer) sendReply(ctx context.Context, p *pendingAnswer, answer string) ([]id.EventID, error) {
	if p.stream != nil && p.stream.posted() {
		return p.stream.finish(ctx, answer)
	}
	var sent []id.EventID
	for _, c := range p.settings.replyContents(answer, p.evt) {
		part, err := a.mx.sendContent(ctx, p.evt.RoomID, c)
		if err != nil {
			return sent, err
		}
		sent = append(sent, part)
	}
	return sent, nil
}

// failAnswer marks the question ❌ and says what went wrong: by editing the
// streamed reply, when part of the answer is already shown (a half answer
// must never look complete), else in a notice.
func (a *answerer) failAnswer(ctx context.Context, p *pendingAnswer, reason string) {
	if p.stream == nil || !p.stream.posted() || a.mx.runCtx.Err() != nil {
		a.failOn(ctx, p, reason)
		return
	}
	a.reactOn(ctx, p, reactFailed)
	if err := p.stream.fail(ctx, reason); err != nil {
		logFrom(ctx, a.log).Warn("could not mark the streamed reply incomplete; posting a notice", "error", err)
		notice, err := a.mx.sendNotice(ctx, p.evt, "⚠️ Sorry, I could not finish this answer: "+reason)
		if err != nil {
			logFrom(ctx, a.log).Error("could not post the failure notice", "error", err)
		}
		linkReplies(ctx, a.bridge, a.log, p.evt, []id.EventID{notice}, a.now())
	}
}

// takenBack ends an answer whose question was redacted: nothing more is
// posted (what was, the redaction takes back), the typing notice ends
// (stopTyping, if it began) and the answer does not count against the
// quotas.
func (a *answerer) takenBack(ctx context.Context, p *pendingAnswer, stopTyping func(context.Context)) {
	a.quota.settle(ctx, p.usage, 0, true)
	if stopTyping != nil {
		stopTyping(ctx)
	}
	logFrom(ctx, a.log).Info("the question was redacted while it was being answered; nothing more is posted")
}

// interrupted tells the asker, within the shutdown grace (ctx), that the
// bridge stopped before their question was answered: ❌ and a notice. It
// is not answered after the restart: the member decides whether the
// question still matters.
func (a *answerer) interrupted(ctx context.Context, p *pendingAnswer) {
	defer p.finished()
	if p.taking.takenBack() {
		a.takenBack(ctx, p, nil)
		return
	}
	a.quota.settle(ctx, p.usage, 0, true)
	select {
	case <-p.reacted:
	case <-ctx.Done():
	}
	// A streamed reply says itself that it is incomplete: with ❌ that is
	// enough, and a second notice would say she could not answer at all
	// (issue 40 item 8). Only when that edit fails does the notice go.
	if p.stream != nil && p.stream.posted() {
		err := p.stream.fail(ctx, "I was restarted before I could finish. Please ask again.")
		if err == nil {
			a.linkFailure(ctx, p.evt)(a.mx.react(ctx, p.evt.RoomID, p.evt.ID, reactFailed), "")
			return
		}
		logFrom(ctx, a.log).Warn("could not mark the streamed reply incomplete; posting a notice", "error", err)
	}
	a.linkFailure(ctx, p.evt)(a.mx.failStopped(ctx, p.evt))
}

// waiting is the number of the room's questions being answered or waiting
// for the model (!ada status).
func (a *answerer) waiting(room id.RoomID) int {
	if a.lines == nil {
		return 0
	}
	return a.lines.Pending(room)
}
