package bot

import (
	"context"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
)

// TestBridgeFutureStampIsNow: a message's stamp (origin_server_ts) is set
// by the sender's client where the homeserver honours `ts` (application
// services; any user on Dendrite). One stamped ten years ahead is stored as
// written now, not then: otherwise its turns and its room message would
// outlive DATA_RETENTION_DAYS by ten years. In a room of three.
func TestBridgeFutureStampIsNow(t *testing.T) {
	f, _ := startRooms(t, func(s *botSetup) { s.RetentionDays = 30 })
	room := f.groupRoom(t, "stamps")
	asked := f.bob.SendAt(room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my locker code is 4711"},
		time.Now().AddDate(10, 0, 0))
	f.bob.Wait("✅", bottest.ReactionTo(asked, reactDone))
	if messages, documents := f.bot.storedFromRoom(room); messages == 0 || documents == 0 {
		t.Fatalf("nothing stored: %d messages, %d documents", messages, documents)
	}

	f.bot.clock.Set(31 * 24 * time.Hour)
	f.bot.bot.forget.retention.Sweep(context.Background())
	if messages, documents := f.bot.storedFromRoom(room); messages != 0 || documents != 0 {
		t.Errorf("31 days later, with DATA_RETENTION_DAYS=30, the room still holds %d messages and %d documents", messages, documents)
	}
}
