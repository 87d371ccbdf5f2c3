package bot

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/mcptools"
	"github.com/ada-chat/ada/core/specialists/mcptools/mcptest"
)

// everythingTools starts the pinned reference "everything" MCP server over
// stdio with its tools.
func everythingTools(t *testing.T) *mcptools.Manager {
	t.Helper()
	node, script := mcptest.Everything(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := mcptools.Start(ctx, []mcptools.Server{{Name: "everything", Command: node, Args: []string{script, "stdio"}}}, mcptools.Options{})
	t.Cleanup(m.Close)
	if len(m.Specialists()) == 0 {
		t.Fatalf("the everything server did not start: %+v", m.Status())
	}
	return m
}

// TestBridgeRoomTools: a room starts with no MCP tool (not offered, and
// refused if the model asks anyway); after a moderator's `!ada set tools`
// within MCP_ROOM_TOOLS a member's question leads to the tool's call, the
// streamed answer shows "using …" meanwhile, and the tool's output reaches
// the model and the answer.
func TestBridgeRoomTools(t *testing.T) {
	tools := everythingTools(t)
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.Stream = StreamOptions{On: true, Interval: 100 * time.Millisecond, MaxEdits: 6}
		s.RoomTools = []string{"everything.echo", "everything.nope"}
		s.Specialists = tools.Specialists()
	}))
	alice := bottest.NewMember(t, hs, "alice", true)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "tools", Invite: []id.UserID{acct.UserID}})
	alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
	const call = `SPECIALIST_REQUEST[everything.echo:{"message": "from the room"}]`

	// Off by default: not offered, and the model's call anyway is refused.
	llm.Script(llmtest.Reply{Tokens: []string{"Trying. ", call}}, llmtest.Reply{Tokens: []string{"I cannot use it."}})
	asked := alice.Say(room, "Ada, echo something")
	alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
	if strings.Contains(chatRequest(t, llm, "echo something").Messages[0].Content, "everything.echo") {
		t.Error("a room without tools was offered everything.echo")
	}
	chatRequest(t, llm, "SPECIALIST_RESULT[everything.echo] (ok=false):\nerror: there is no available specialist named \"everything.echo\"")

	// Outside MCP_ROOM_TOOLS: refused.
	set := alice.Say(room, "!ada set tools everything.get-env")
	if body := alice.Wait("the refusal", bottest.ReplyTo(acct.UserID, set, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(body, "not a tool this bridge allows") {
		t.Errorf("refusal %q", body)
	}
	// Within MCP_ROOM_TOOLS but no server offers it: refused too.
	set = alice.Say(room, "!ada set tools everything.nope")
	if body := alice.Wait("the refusal", bottest.ReplyTo(acct.UserID, set, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(body, "No MCP server offers a tool `everything.nope`") ||
		!strings.Contains(body, "`everything.echo`") {
		t.Errorf("refusal %q", body)
	}
	help := func() string {
		asked := alice.Say(room, "!ada help")
		return alice.Wait("the help", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body
	}
	// The help lists the tools rooms may use, with server and description;
	// only those of MCP_ROOM_TOOLS.
	if h := help(); !strings.Contains(h, "`everything.echo` (off here, server everything): Echoes back") || strings.Contains(h, "everything.get-env") {
		t.Errorf("help before: %q", h)
	}
	set = alice.Say(room, "!ada set tools everything.echo")
	alice.Wait("the setting confirmed", bottest.ReplyTo(acct.UserID, set, event.MsgNotice))
	if h := help(); !strings.Contains(h, "`everything.echo` (on here, server everything)") {
		t.Errorf("help after: %q", h)
	}

	// The model's next words wait until the test has seen the pause.
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	defer release()
	llm.Script(llmtest.Reply{Tokens: []string{"Let me use the tool. ", call}},
		llmtest.Reply{Tokens: []string{"It said: Echo: from the room."}, Hold: hold, HoldAfter: 0})
	asked = alice.Say(room, "Ada, echo something now")
	reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	alice.Wait(`"using everything.echo…" shown`, func(e *event.Event) bool {
		c := e.Content.AsMessage()
		if e.ID == reply.ID {
			return strings.Contains(c.Body, "using everything.echo…")
		}
		return editsOf(reply.ID)(e) && c.NewContent != nil && strings.Contains(c.NewContent.Body, "using everything.echo…")
	})
	release()
	alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
	edits := alice.Find(editsOf(reply.ID))
	if len(edits) == 0 {
		t.Fatal("the streamed answer was never edited")
	}
	if nc := edits[len(edits)-1].Content.AsMessage().NewContent; nc == nil || nc.Body != "Let me use the tool. It said: Echo: from the room." {
		t.Errorf("last edit %+v", nc)
	}
	if !strings.Contains(chatRequest(t, llm, "echo something now").Messages[0].Content, "- everything.echo") {
		t.Error("the tool was not offered after !ada set tools")
	}
	chatRequest(t, llm, "SPECIALIST_RESULT[everything.echo] (ok=true):\nEcho: from the room")
}

// chatRequest is the model's first request whose last message holds
// text: background work (automatic memories) asks the model too.
func chatRequest(t *testing.T, llm *llmtest.Server, text string) llmtest.Request {
	t.Helper()
	for _, r := range llm.ChatRequests() {
		if n := len(r.Messages); n > 0 && strings.Contains(r.Messages[n-1].Content, text) {
			return r
		}
	}
	t.Fatalf("no request to the model ends with %q", text)
	return llmtest.Request{}
}
