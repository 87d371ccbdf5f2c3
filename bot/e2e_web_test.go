package bot

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestWebLink (issue 30): `!ada web` without PUBLIC_URL says to set it.
// With it, in a shared room, the member gets the link in an (encrypted)
// direct chat Ada makes, and the room only hears that it was sent; the
// token redeems once, for that member, and never reaches the logs. The
// member's rooms are those they are joined to now: after leaving, the room
// is no longer listed. `!ada forget me` and `!ada web logout` end the
// member's page sessions and withdraw their links (issue 36).
func TestWebLink(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	alice := bottest.NewMember(t, hs, "alice", true)
	bob := bottest.NewMember(t, hs, "bob", false)
	const public = "https://ada.example.org"
	settings := botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) { s.WebPage = true })
	ctx := context.Background()

	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "web", Invite: []id.UserID{acct.UserID, bob.Client.UserID}})
	bob.Join(room)
	noURL := startBot(t, settings)
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	asked := alice.Say(room, "!ada web")
	reply := alice.Wait("the reply without PUBLIC_URL", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice))
	if !strings.Contains(reply.Content.AsMessage().Body, "PUBLIC_URL") {
		t.Errorf("without PUBLIC_URL the reply should say to set it: %q", reply.Content.AsMessage().Body)
	}
	noURL.stop()

	settings.PublicURL = public
	env := startBot(t, settings)
	asked = alice.Say(room, "!ada web")
	reply = alice.Wait("the reply in the room", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice))
	if body := reply.Content.AsMessage().Body; !strings.Contains(body, "direct message") || strings.Contains(body, "/ui/login/") {
		t.Errorf("the room should only hear that a link was sent by DM: %q", body)
	}
	invite := alice.Wait("Ada's invitation to a direct chat", func(e *event.Event) bool {
		return e.Type == event.StateMember && e.GetStateKey() == alice.Client.UserID.String() && e.Sender == acct.UserID &&
			e.Content.AsMember().Membership == event.MembershipInvite && e.Content.AsMember().IsDirect
	})
	dm := invite.RoomID
	alice.Join(dm)
	msg := alice.Wait("the link in the direct chat", bottest.MessageFrom(dm, acct.UserID, event.MsgNotice))
	linkToken := regexp.MustCompile(regexp.QuoteMeta(public+"/ui/login/") + `([A-Za-z0-9_-]{43})\b`)
	token := linkToken.FindStringSubmatch(msg.Content.AsMessage().Body)
	if token == nil {
		t.Fatalf("no %s/ui/login/<token> link in the direct message: %q", public, msg.Content.AsMessage().Body)
	}
	if enc, _ := env.bot.mx.cli.StateStore.IsEncrypted(ctx, dm); !enc {
		t.Error("the direct chat Ada made is not encrypted")
	}
	for _, e := range alice.Find(bottest.MessageFrom(room, acct.UserID, event.MsgNotice)) {
		if strings.Contains(e.Content.AsMessage().Body, token[1]) {
			t.Errorf("the token was posted in the shared room: %q", e.Content.AsMessage().Body)
		}
	}

	user, loginEpoch, err := env.bot.Redeem(ctx, token[1])
	if err != nil || user != alice.Client.UserID.String() {
		t.Fatalf("redeem: %q, %v; want %s", user, err, alice.Client.UserID)
	}
	epoch := func(who id.UserID) string {
		t.Helper()
		e, err := env.bot.SessionEpoch(ctx, who.String())
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if epoch(alice.Client.UserID) != loginEpoch {
		t.Fatal("the sessions epoch changed without a logout")
	}
	if user, _, err := env.bot.Redeem(ctx, token[1]); core.KindOf(err) != core.KindNotFound {
		t.Errorf("the link used a second time: %q, %v; want NotFound", user, err)
	}
	if strings.Contains(env.logs.String(), token[1]) {
		t.Error("the token is in the bridge's log")
	}
	if n := env.count(`SELECT count(*) FROM bridge_messages WHERE instr(text, ?) > 0`, token[1]); n != 0 {
		t.Errorf("the link is stored as room context %d times", n)
	}

	// A second link reuses the direct chat; one a minute; `!ada forget me`
	// withdraws the member's links; in the direct chat the link is the
	// reply itself.
	command := func(room id.RoomID, text string) *event.Event {
		t.Helper()
		asked := alice.Say(room, text)
		return alice.Wait("the reply to "+text, bottest.ReplyTo(acct.UserID, asked, event.MsgNotice))
	}
	command(room, "!ada web")
	second := alice.Wait("a second link in the same direct chat", func(e *event.Event) bool {
		return bottest.MessageFrom(dm, acct.UserID, event.MsgNotice)(e) && !strings.Contains(e.Content.AsMessage().Body, token[1])
	})
	if got := command(room, "!ada web").Content.AsMessage().Body; !strings.Contains(got, "less than a minute ago") {
		t.Errorf("a third link within a minute: %q", got)
	}
	bobsEpoch := epoch(bob.Client.UserID)
	command(room, "!ada forget me")
	secondToken := linkToken.FindStringSubmatch(second.Content.AsMessage().Body)
	if secondToken == nil {
		t.Fatalf("no link in the second direct message: %q", second.Content.AsMessage().Body)
	}
	if _, _, err := env.bot.Redeem(ctx, secondToken[1]); core.KindOf(err) != core.KindNotFound {
		t.Errorf("a link outlived forget me: %v", err)
	}
	// Issue 36: forget me ends the member's page sessions too (the page
	// ends a session whose epoch is no longer current), not another's.
	afterForget := epoch(alice.Client.UserID)
	if afterForget == loginEpoch {
		t.Error("the page sessions outlived forget me")
	}
	if epoch(bob.Client.UserID) != bobsEpoch {
		t.Error("alice's forget me ended bob's page sessions")
	}
	inDM := command(dm, "!ada web").Content.AsMessage().Body
	dmToken := linkToken.FindStringSubmatch(inDM)
	if dmToken == nil {
		t.Fatalf("in the direct chat the link should be the reply: %q", inDM)
	}
	// `!ada web logout` ends every session and withdraws the unused link.
	if got := command(room, "!ada web logout").Content.AsMessage().Body; !strings.Contains(got, "sessions are ended") {
		t.Errorf("the reply to !ada web logout: %q", got)
	}
	if epoch(alice.Client.UserID) == afterForget {
		t.Error("the page sessions outlived !ada web logout")
	}
	if _, _, err := env.bot.Redeem(ctx, dmToken[1]); core.KindOf(err) != core.KindNotFound {
		t.Errorf("a link outlived !ada web logout: %v", err)
	}
	if got := command(room, "!ada help").Content.AsMessage().Body; !strings.Contains(got, "`!ada web logout`") || !strings.Contains(got, "`!ada web`:") {
		t.Errorf("help should list !ada web and !ada web logout: %q", got)
	}
	invites := map[id.RoomID]bool{} // an invite is seen as one and again in the joined room
	for _, e := range alice.Find(func(e *event.Event) bool {
		return e.Type == event.StateMember && e.Sender == acct.UserID && e.Content.AsMember().Membership == event.MembershipInvite
	}) {
		invites[e.RoomID] = true
	}
	if len(invites) != 1 {
		t.Errorf("Ada invited alice to %d rooms, want one direct chat", len(invites))
	}

	inRoom := func(user id.UserID) bool {
		rooms, err := env.bot.JoinedRooms(ctx, user.String())
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(rooms, room.String())
	}
	if !inRoom(alice.Client.UserID) {
		t.Fatal("JoinedRooms does not list the member's room")
	}
	if _, err := alice.Client.LeaveRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the room leaves the member's rooms", func() bool { return !inRoom(alice.Client.UserID) })
	if !inRoom(bob.Client.UserID) {
		t.Error("the room went from the rooms of the member who stayed")
	}
}
