package bot

import (
	"context"
	"slices"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// lastAnswer is what the room's last answer used, for `!ada why`. It is
// kept in memory, and in bridge_why where storage is on (why_store.go).
type lastAnswer struct {
	// questionEvent and replyEvent are the Matrix events of the exchange.
	questionEvent, replyEvent id.EventID
	question                  string
	asker                     string
	// askerID is who asked: forgetting them through another door takes
	// the last answer (forget_elsewhere.go), however far the room's
	// window has moved on. Empty in one kept before it was recorded.
	askerID id.UserID
	at      time.Time
	used    core.UsedContext
}

// dropWhy forgets the last answer kept for `!ada why` when it quotes what
// was just removed: the redacted question or reply (event), or a deleted
// memory, turn or summary (docIDs). `!ada why` must not bring back text a
// member took away.
func (rt *roomRuntime) dropWhy(event id.EventID, docIDs ...string) {
	la := rt.lastAnswer
	if la == nil {
		return
	}
	if event != "" && (event == la.questionEvent || event == la.replyEvent) {
		rt.lastAnswer = nil
		return
	}
	for _, items := range [][]core.ContextItem{la.used.Memories, la.used.Turns, la.used.Summaries} {
		for _, it := range items {
			if slices.Contains(docIDs, it.ID) {
				rt.lastAnswer = nil
				return
			}
		}
	}
}

// recordAnswer keeps what the answer used for `!ada why`, and links the
// stored turns to the Matrix events they came from, so that a redaction
// deletes them: the question's redaction removes both turns (the answer
// only exists because of it), the reply's removes the assistant's turn.
func (a *answerer) recordAnswer(ctx context.Context, question *event.Event, prompt, asker string, reply id.EventID, res core.ChatResult) {
	rt := a.rooms.get(question.RoomID)
	rt.lastAnswer = &lastAnswer{questionEvent: question.ID, replyEvent: reply,
		question: prompt, asker: asker, askerID: question.Sender, at: a.now(), used: res.UsedContext}
	saveWhy(ctx, a.bridge, a.log, question.RoomID, rt.lastAnswer, len(res.TurnIDs) == 2)
	if len(res.TurnIDs) != 2 {
		return // nothing stored (privacy mode)
	}
	user, assistant := res.TurnIDs[0], res.TurnIDs[1]
	links := []storage.BridgeLink{
		{EventID: question.ID.String(), DocID: user, Kind: storage.LinkTurn, ConversationID: res.ConversationID},
		{EventID: question.ID.String(), DocID: assistant, Kind: storage.LinkTurn, ConversationID: res.ConversationID},
	}
	if reply != "" {
		links = append(links, storage.BridgeLink{EventID: reply.String(), DocID: assistant, Kind: storage.LinkTurn, ConversationID: res.ConversationID})
	}
	if err := a.bridge.AddLinks(ctx, question.RoomID.String(), links, a.now()); err != nil {
		logFrom(ctx, a.log).Error("could not link the stored turns to their messages; a redaction will not remove them", "error", err)
	}
}
