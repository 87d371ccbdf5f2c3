package bot

import (
	"maunium.net/go/mautrix/event"
)

// replyContents is the answer's events as the room's `replies` setting
// wants them: by default they follow the question (in its thread when it
// is in one, else as a reply); with `replies room` they are posted in the
// main timeline, the first part a reply to the question, even when it was
// asked in a thread.
func (s answerSettings) replyContents(answer string, evt *event.Event) []*event.MessageEventContent {
	out := replyContents(answer, evt)
	if !s.repliesRoom {
		return out
	}
	for i, c := range out {
		c.RelatesTo = nil
		if i == 0 {
			c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(evt.ID)
		}
	}
	return out
}
