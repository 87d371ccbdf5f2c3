package bot

import (
	"context"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// A question asked in a thread is a follow-up in that conversation, so the
// thread is its context (DECISIONS.md, "Threads, reminders and MCP
// servers"): the thread's root and its messages among the room's context
// window, and none of the main timeline's. The homeserver says which
// events the thread holds; their texts come from the window, so that what
// members took back (a redaction, an edit, `!ada forget me`, `!ada
// clear`, retention) stays out of the prompt as it does for the room.

// maxThreadLookup bounds the thread's events asked of the homeserver: the
// window holds at most MAX_CONTEXT_MESSAGES messages, so only a thread's
// newest events can be in it; twice as many cover the thread's events the
// window does not keep (the later parts of long answers, notices).
const maxThreadLookup = 200

// threadEvents are the events of the thread evt was asked in, its root
// included, or nil outside a thread. When the homeserver cannot say, it is
// nil too, and the question gets the room's window as before.
func (a *answerer) threadEvents(ctx context.Context, evt *event.Event) map[id.EventID]bool {
	root := threadRoot(evt)
	if root == "" {
		return nil
	}
	limit := min(2*a.window.keep+10, maxThreadLookup)
	resp, err := a.mx.cli.GetRelations(ctx, evt.RoomID, root, &mautrix.ReqGetRelations{
		RelationType: event.RelThread, Dir: mautrix.DirectionBackward, Limit: limit})
	if err != nil {
		logFrom(ctx, a.log).Warn("could not read the question's thread; the room's context is used", "thread", root.String(), "error", err)
		return nil
	}
	out := map[id.EventID]bool{root: true}
	for _, e := range resp.Chunk {
		out[e.ID] = true
	}
	return out
}
