package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
)

// TestPurgeOnLeave (issue 26, item 6): with ROOM_DATA_ON_LEAVE=purge, a
// kick takes everything the room stored — its messages, turns and memories
// — and each memory's history says why, without its text; another room
// keeps its own.
func TestPurgeOnLeave(t *testing.T) {
	_, llm, acct, settings, alice := newOneMember(t, func(s *botSetup) { s.PurgeOnLeave = true })
	env := startBot(t, settings)
	extractFacts(t, llm, map[string]string{"my boat is green": "alice's boat is green", "my car is blue": "alice's car is blue"})
	var rooms []id.RoomID
	for i, fact := range []string{"Ada, my boat is green", "Ada, my car is blue"} {
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "purge " + string(rune('a'+i)), Invite: []id.UserID{acct.UserID}})
		alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
		asked := alice.Say(room, fact)
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		env.waitMemories(t, room, "the fact is learned", holding(strings.Fields(fact)[2]))
		rooms = append(rooms, room)
	}
	kicked := rooms[0]
	mem := env.roomMemories(t, kicked)[0]
	if _, err := alice.Client.KickUser(context.Background(), kicked, &mautrix.ReqKickUser{UserID: acct.UserID, Reason: "bye"}); err != nil {
		t.Fatal(err)
	}
	env.waitStored(t, "the kicked room's documents go", 0, `SELECT count(*) FROM documents WHERE room_id = ?`, kicked.String())
	env.waitStored(t, "and its messages", 0, `SELECT count(*) FROM bridge_messages WHERE room_id = ?`, kicked.String())
	hist, err := env.svc.MemoryHistory(context.Background(), mem.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := hist[len(hist)-1]; last.Event != core.HistoryDelete || !strings.Contains(last.Reason, "left the room") || last.Text != "" {
		t.Errorf("the purged memory's history should end with its deletion, why and no text: %+v", last)
	}
	if messages, docs := env.storedFromRoom(rooms[1]); messages == 0 || docs == 0 {
		t.Errorf("the other room lost its data: %d messages, %d documents", messages, docs)
	}
}
