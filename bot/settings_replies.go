package bot

import (
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// replyContents is the answer's events as the room's `replies` setting
// wants them (DECISIONS.md, "Threads, reminders and MCP servers"). A
// question asked in a thread is answered in that thread either way
// (relateTo). Otherwise, with `room` (the default) the first part is a
// reply in the main timeline; with `thread` every part starts or goes on
// in a thread rooted at the question, each with the reply fallback to it
// (m.in_reply_to, is_falling_back) that clients without threads show.
func (s answerSettings) replyContents(answer string, evt *event.Event) []*event.MessageEventContent {
	out := replyContents(answer, evt)
	if !s.repliesThread || threadRoot(evt) != "" {
		return out
	}
	for _, c := range out {
		c.RelatesTo = (&event.RelatesTo{}).SetThread(evt.ID, evt.ID)
	}
	return out
}

// threadRoot is the root of the thread evt was sent in; "" outside threads.
func threadRoot(evt *event.Event) id.EventID {
	if c, ok := evt.Content.Parsed.(*event.MessageEventContent); ok {
		return c.RelatesTo.GetThreadParent()
	}
	return ""
}
