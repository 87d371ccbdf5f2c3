package main

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
)

// TestRedactionSurvivesSIGKILL (issue 26, acceptance): a redaction the
// bridge received and recorded, but had not applied when the process was
// killed with SIGKILL, is applied by the next start: the redacted
// message's turns, the memory learned from it and Ada's reply go. The room
// is kept busy deterministically: a `!ada remember` waits in the room's job
// on a held embedding, and the redaction, which runs one at a time with
// the room's jobs, waits behind it.
func TestRedactionSurvivesSIGKILL(t *testing.T) {
	bin := buildAda(t)
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	env := testEnv(t, map[string]string{
		"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName,
		"EMBED_BACKEND": "ollama", "EMBED_MODEL": "nomic-embed-text",
		"MATRIX_HOMESERVER": hs.URL(), "MATRIX_USER_ID": acct.UserID.String(), "MATRIX_PASSWORD": acct.Password,
	})
	proc, _ := startBinaryCmd(t, bin, "up", env)

	alice := bottest.NewMember(t, hs, "alice", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "killed", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format != nil && strings.Contains(r.Messages[len(r.Messages)-1].Content, "my bike is teal") {
			return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"alice's bike is teal","importance":3,"replaces":[]}]}`}}, true
		}
		return llmtest.Reply{}, false
	})
	llm.Default(llmtest.Reply{Tokens: []string{"noted, a teal bike"}})
	asked := alice.Say(room, "Ada, my bike is teal")
	reply := alice.Wait("the answer", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	alice.Wait("✅", bottest.ReactionTo(asked, "✅"))
	roomMemories := func() []core.Document {
		return documentsIn(t, env, core.Filter{Type: core.DocMemory, Scopes: []string{core.EntityScope(room.String())}})
	}
	holdsTeal := func(docs []core.Document) bool {
		return slices.ContainsFunc(docs, func(d core.Document) bool { return strings.Contains(d.Text, "teal") })
	}
	turns := func() []core.Document { return documentsIn(t, env, core.Filter{Type: core.DocTurn}) }
	waitFor(t, "the bike memory", func() bool { return holdsTeal(roomMemories()) })
	waitFor(t, "the exchange's turns", func() bool { return holdsTeal(turns()) })

	// The room's job embeds a remembered text and the model holds it.
	release := make(chan struct{})
	defer close(release)
	llm.SetEmbed(llmtest.Embed{Hold: release})
	alice.Say(room, "!ada remember the gate code is 4471")
	waitFor(t, "the remember command to embed", func() bool {
		return slices.ContainsFunc(llm.Requests(), func(r llmtest.Request) bool {
			return slices.ContainsFunc(r.Input, func(in string) bool { return strings.Contains(in, "gate code") })
		})
	})
	if _, err := alice.Client.RedactEvent(context.Background(), room, asked); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the redaction is recorded", func() bool { return len(pendingRedactions(t, env)) == 1 })
	if !holdsTeal(roomMemories()) || !holdsTeal(turns()) {
		t.Fatal("the redaction was applied before the kill; the test proves nothing")
	}
	if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = proc.Wait()

	llm.SetEmbed(llmtest.Embed{})
	startBinaryCmd(t, bin, "up", env)
	alice.Wait("Ada's reply to the redacted message is redacted", bottest.RedactionOf(reply.ID))
	waitFor(t, "the turns go at the next start", func() bool { return !holdsTeal(turns()) })
	waitFor(t, "the memory goes at the next start", func() bool { return !holdsTeal(roomMemories()) })
	waitFor(t, "the redaction is marked done", func() bool { return len(pendingRedactions(t, env)) == 0 })
}

// pendingRedactions reads the redactions recorded and not applied yet.
func pendingRedactions(t *testing.T, env map[string]string) []storage.BridgeRedaction {
	t.Helper()
	db, err := storage.Open(context.Background(), env["DATA_DIR"]+"/ada.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	due, err := db.Bridge().DueRedactions(context.Background(), time.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	return due
}
