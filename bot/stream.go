package bot

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// StreamOptions are the settings of streaming by edits.
type StreamOptions struct {
	// On shows answers as they are written (STREAM_EDITS).
	On bool
	// Interval is the least time between two sends of one answer
	// (STREAM_EDIT_SECONDS): the homeserver and the other members' clients
	// are not flooded.
	Interval time.Duration
	// MaxEdits bounds the edits of one answer, the final one included
	// (STREAM_MAX_EDITS).
	MaxEdits int
}

// streams decides whether an answer is streamed and starts its streamer.
type streams struct {
	opts StreamOptions
	mx   *matrix
	// link links what is posted (the reply, kind storage.LinkReply, and
	// each edit of it, storage.LinkEdit) to its question as it is sent, so
	// that taking the answer back, mid-stream too, takes all of it.
	link func(ctx context.Context, question *event.Event, kind string, posted id.EventID)
}

// start returns the streamer of p's answer, or nil when the room's answers
// are posted whole (the room's `stream` setting, else STREAM_EDITS).
// The first post waits for 🧠: members always see it first.
// prefix is shown before the answer (a voice message's quoted transcript).
func (s *streams) start(ctx context.Context, p *pendingAnswer, prefix string) *streamer {
	if s == nil || !p.settings.streamOr(s.opts.On) {
		return nil
	}
	st := &streamer{mx: s.mx, evt: p.evt, opts: s.opts, reacted: p.reacted, prefix: prefix, link: s.link,
		layout: p.settings.replyContents,
		wake:   make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go st.run(ctx)
	return st
}

// streamer is the Matrix encoder of one answer's chat events: it posts the
// answer's first sentence as a reply, then edits that reply (m.replace) as
// the tokens come, throttled. The final edit (finish) is the whole answer.
// emit runs in the chat's goroutine and never waits for the homeserver: the
// sends happen in run's goroutine.
type streamer struct {
	mx   *matrix
	evt  *event.Event
	opts StreamOptions
	// reacted is closed once 🧠 is sent.
	reacted <-chan struct{}
	// prefix comes before the answer's text.
	prefix string
	link   func(ctx context.Context, question *event.Event, kind string, posted id.EventID)
	// layout splits and addresses an answer as the room's replies setting
	// says (a thread, or the room's timeline).
	layout func(answer string, question *event.Event) []*event.MessageEventContent

	mu     sync.Mutex
	text   strings.Builder // the answer so far
	status string          // what Ada is doing in a pause ("searching the web…")

	wake chan struct{} // something new to show
	stop chan struct{} // closed by end: no more interim sends
	done chan struct{} // closed when run has returned

	// Owned by run until done, then by finish or fail.
	reply id.EventID // the posted message; empty until the first sentence
	sends int        // edits sent
	shown string     // the Markdown last shown
}

// The reply shows it is still being written until the final edit.
const streamingMark = " …"

// sentenceEnd is the end of a first sentence worth posting: a colon, a
// semicolon or a line break ends none ("You asked:" is a fragment).
var sentenceEnd = regexp.MustCompile(`[.!?…](\s|$)`)

// emit takes one chat event. Only the answer's text and the specialist
// pauses are shown; thinking is not.
func (s *streamer) emit(ev core.Event) error {
	s.mu.Lock()
	switch ev.Type {
	case core.EventToken:
		s.text.WriteString(ev.Content)
		s.status = ""
	case core.EventSpecialistCall, core.EventSpecialistResult:
		// A specialist runs, then the model reads its result: say what
		// Ada is doing until the text goes on, so the pause does not look
		// like the end. (Through ADA_API_URL only the result is seen.)
		s.status = specialistDoing(ev.Specialist)
	default:
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// specialistDoing names a specialist's work in a few plain words.
func specialistDoing(name string) string {
	switch name {
	case "web_search":
		return "searching the web…"
	case "media":
		return "looking up the music…"
	case "ocr":
		return "reading the image…"
	}
	return "using " + name + "…" // an MCP server's tool (server.tool), or a newer helper
}

// snapshot is what the reply would show now, or "" when there is nothing
// worth posting yet (no whole sentence before the first post).
func (s *streamer) snapshot() string {
	s.mu.Lock()
	text, status := strings.TrimSpace(s.text.String()), s.status
	s.mu.Unlock()
	if s.reply == "" && !sentenceEnd.MatchString(text) && len(text) < 280 {
		return ""
	}
	text = s.prefix + text
	// Only the first part is streamed: the rest of a long answer comes in
	// new messages at the end, as without streaming.
	if parts := splitMarkdown(text, maxPartBytes); len(parts) > 1 {
		text = parts[0]
	}
	if status != "" {
		return text + "\n\n_" + status + "_"
	}
	return text + streamingMark
}

// run sends the interim posts: the first sentence, then an edit whenever
// there is more to show, at most once per Interval, keeping one edit of the
// cap for the final one.
func (s *streamer) run(ctx context.Context) {
	defer close(s.done)
	var last time.Time
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			return
		}
		if wait := s.opts.Interval - time.Since(last); !last.IsZero() && wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.stop:
				t.Stop()
				return
			}
		}
		md := s.snapshot()
		if md == "" || md == s.shown {
			continue
		}
		if s.reply != "" && s.sends >= s.opts.MaxEdits-1 {
			continue // the last edit is kept for the whole answer
		}
		if err := s.show(ctx, md); err != nil {
			logFrom(ctx, s.mx.log).Warn("could not show the answer so far", "error", err)
		}
		last = time.Now()
	}
}

// end stops the interim sends and waits for the one under way.
func (s *streamer) end() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// posted reports whether part of the answer is already in the room.
func (s *streamer) posted() bool { return s.reply != "" }

// show posts md as the reply, or edits the reply to md.
func (s *streamer) show(ctx context.Context, md string) error {
	if s.reply == "" {
		select {
		case <-s.reacted:
		case <-ctx.Done():
			return ctx.Err()
		}
		evID, err := s.mx.sendContent(ctx, s.evt.RoomID, s.layout(md, s.evt)[0])
		if err != nil {
			return err
		}
		s.reply, s.shown = evID, md
		s.linked(ctx, storage.LinkReply, evID)
		return nil
	}
	if err := s.sendEdit(ctx, renderPart(md)[0]); err != nil {
		return err
	}
	s.sends++
	s.shown = md
	return nil
}

// sendEdit edits the reply to c and links the edit to the question.
func (s *streamer) sendEdit(ctx context.Context, c *event.MessageEventContent) error {
	evID, err := s.mx.sendContent(ctx, s.evt.RoomID, editOf(s.reply, c, s.evt.Sender))
	if err != nil {
		return err
	}
	s.linked(ctx, storage.LinkEdit, evID)
	return nil
}

// linked links an event of the answer to its question.
func (s *streamer) linked(ctx context.Context, kind string, posted id.EventID) {
	if s.link != nil {
		s.link(ctx, s.evt, kind, posted)
	}
}

// editOf makes c (one rendered part, without relations) an edit of reply:
// m.new_content holds the new text, and the body outside it is the
// "* text" fallback of clients without edits, shortened for long texts so
// that the event stays well within its size limit. The asker stays
// mentioned in the new content, and nobody is pinged again by the edit.
func editOf(reply id.EventID, c *event.MessageEventContent, asker id.UserID) *event.MessageEventContent {
	c.Mentions = &event.Mentions{UserIDs: []id.UserID{asker}}
	c.RelatesTo = nil
	c.SetEdit(reply)
	if len(c.NewContent.Body) > 2000 {
		c.Body = "* " + firstRunes(c.NewContent.Body, 200) + "…"
		c.Format, c.FormattedBody = "", ""
	}
	return c
}

// firstRunes is at most n runes of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// finish makes the reply the whole answer: the final edit, and the rest of
// a long answer in new messages. It returns the events of the answer, the
// streamed reply first.
func (s *streamer) finish(ctx context.Context, answer string) ([]id.EventID, error) {
	s.end()
	contents := s.layout(answer, s.evt)
	first := &event.MessageEventContent{MsgType: event.MsgText, Body: contents[0].Body,
		Format: contents[0].Format, FormattedBody: contents[0].FormattedBody}
	sent := []id.EventID{s.reply}
	if err := s.sendEdit(ctx, first); err != nil {
		return sent, err
	}
	s.sends++
	for _, c := range contents[1:] {
		evID, err := s.mx.sendContent(ctx, s.evt.RoomID, c)
		if err != nil {
			return sent, err
		}
		sent = append(sent, evID)
	}
	return sent, nil
}

// fail edits the streamed reply to say plainly that the answer broke off,
// so that a half answer never looks complete.
func (s *streamer) fail(ctx context.Context, reason string) error {
	s.end()
	s.mu.Lock()
	text := s.prefix + strings.TrimSpace(s.text.String())
	s.mu.Unlock()
	if parts := splitMarkdown(text, maxPartBytes/2); len(parts) > 0 {
		text = parts[0]
	}
	md := text + "\n\n⚠️ **This answer is incomplete.** Sorry, I could not finish it: " + reason
	return s.sendEdit(ctx, renderPart(md)[0])
}
