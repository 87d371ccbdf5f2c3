package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// `!ada why` survives a restart (issue 26): the room's last answer is kept
// in bridge_why beside the one in memory, where storage is on, and deleted
// with what it quotes.

// storedWhy is a lastAnswer as bridge_why keeps it.
type storedWhy struct {
	Question string           `json:"question"`
	Asker    string           `json:"asker"`
	AskerID  string           `json:"asker_id,omitempty"`
	Used     core.UsedContext `json:"used"`
}

// saveWhy keeps the room's last answer; stored is false when nothing of
// the answer was stored (privacy mode), and then the older one goes, so
// that a restart never shows an answer before the last.
func saveWhy(ctx context.Context, b *storage.Bridge, log *slog.Logger, room id.RoomID, la *lastAnswer, stored bool) {
	var err error
	if !stored {
		err = b.DropWhy(ctx, room.String(), "")
	} else if body, jerr := json.Marshal(storedWhy{Question: la.question, Asker: la.asker, AskerID: la.askerID.String(), Used: la.used}); jerr != nil {
		err = jerr
	} else {
		err = b.SaveWhy(ctx, room.String(), storage.BridgeWhy{QuestionEvent: la.questionEvent.String(), ReplyEvent: la.replyEvent.String(),
			DocIDs: whyDocIDs(la.used), Body: body, At: la.at})
	}
	if err != nil {
		logFrom(ctx, log).Error("could not keep the last answer for !ada why", "error", err)
	}
}

// whyDocIDs are the documents the answer quotes.
func whyDocIDs(u core.UsedContext) []string {
	var ids []string
	for _, items := range [][]core.ContextItem{u.Memories, u.Turns, u.Summaries} {
		for _, it := range items {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

// loadWhy reads the room's last answer kept before a restart, or nil.
func loadWhy(ctx context.Context, b *storage.Bridge, log *slog.Logger, room id.RoomID) *lastAnswer {
	w, ok, err := b.LoadWhy(ctx, room.String())
	if err != nil {
		logFrom(ctx, log).Error("could not read the last answer for !ada why", "error", err)
	}
	var s storedWhy
	if !ok || json.Unmarshal(w.Body, &s) != nil {
		return nil
	}
	return &lastAnswer{questionEvent: id.EventID(w.QuestionEvent), replyEvent: id.EventID(w.ReplyEvent),
		question: s.Question, asker: s.Asker, askerID: id.UserID(s.AskerID), at: w.At.In(time.UTC), used: s.Used}
}

// dropWhy forgets the room's last answer, in memory and kept, when it
// quotes the event or one of docIDs (roomRuntime.dropWhy); with neither,
// whatever it quotes.
func dropWhy(ctx context.Context, b *storage.Bridge, rooms *roomStates, log *slog.Logger, room id.RoomID, event id.EventID, docIDs ...string) {
	rt := rooms.get(room)
	if event == "" && len(docIDs) == 0 {
		rt.lastAnswer = nil
	} else {
		rt.dropWhy(event, docIDs...)
	}
	if err := b.DropWhy(ctx, room.String(), event.String(), docIDs...); err != nil {
		logFrom(ctx, log).Error("could not forget the kept last answer", "error", err)
	}
}

// dropWhyQuotingSummaries forgets the room's last answer, in memory and
// kept, when it quotes a summary: deleting turns removes the summaries that
// covered them (the core rewrites them without the turns), and the bridge
// is not told which, so any summary it quotes may hold the deleted text.
func dropWhyQuotingSummaries(ctx context.Context, b *storage.Bridge, rooms *roomStates, log *slog.Logger, room id.RoomID) {
	la := rooms.get(room).lastAnswer
	if la == nil {
		la = loadWhy(ctx, b, log, room)
	}
	if la == nil {
		return
	}
	var ids []string
	for _, s := range la.used.Summaries {
		ids = append(ids, s.ID)
	}
	if len(ids) > 0 {
		dropWhy(ctx, b, rooms, log, room, "", ids...)
	}
}
