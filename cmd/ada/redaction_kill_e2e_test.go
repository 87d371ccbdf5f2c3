package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
// message's turns, the memory learned from it, the summary covering it and
// Ada's reply go; then the text is found nowhere (memory search, keyword
// index, a chat's used_context, /v1/debug/rag, `!ada why`). The room
// is kept busy deterministically: a `!ada remember` waits in the room's job
// on a held embedding, and the redaction, which runs one at a time with
// the room's jobs, waits behind it.
func TestRedactionSurvivesSIGKILL(t *testing.T) {
	bin := buildAda(t)
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	env := bridgeEnv(t, hs, acct, llm, map[string]string{
		"EMBED_BACKEND": "ollama", "EMBED_MODEL": "nomic-embed-text", "RAG_DEBUG": "true", "RAG_SUMMARY_EVERY_N": "1",
	})
	proc, firstAPI := startBinaryCmd(t, bin, "up", env)

	alice := bottest.NewMember(t, hs, "alice", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "killed", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format != nil && strings.Contains(r.Messages[len(r.Messages)-1].Content, "my bike is teal") {
			return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"alice's bike is teal","importance":3,"replaces":[]}]}`}}, true
		}
		if isSummaryRequest(r) && strings.Contains(r.Messages[1].Content, "teal") {
			return llmtest.Reply{Tokens: []string{"Alice said her bike is teal."}}, true
		}
		if isSummaryRequest(r) {
			return llmtest.Reply{Tokens: []string{"Alice talked with Ada."}}, true
		}
		return llmtest.Reply{}, false
	})
	llm.Default(llmtest.Reply{Tokens: []string{"noted"}})
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
	summaries := func() []core.Document { return documentsIn(t, env, core.Filter{Type: core.DocSummary}) }
	waitFor(t, "the exchange's summary", func() bool { return holdsTeal(summaries()) })
	memorySearch := "/v1/memory?" + url.Values{"search": {"bike teal"}, "entity": {room.String()}}.Encode()
	if body := httpBody(t, "GET", firstAPI+memorySearch, ""); !strings.Contains(body, "teal") {
		t.Fatalf("the memory search should find the fact before the redaction:\n%s", body)
	}
	if keywordHits(t, env, "teal") == 0 {
		t.Fatal("the keyword index should find the fact before the redaction")
	}

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
	_, api := startBinaryCmd(t, bin, "up", env)
	alice.Wait("Ada's reply to the redacted message is redacted", bottest.RedactionOf(reply.ID))
	waitFor(t, "the turns go at the next start", func() bool { return !holdsTeal(turns()) })
	waitFor(t, "the memory goes at the next start", func() bool { return !holdsTeal(roomMemories()) })
	waitFor(t, "the summary goes at the next start", func() bool { return !holdsTeal(summaries()) })
	waitFor(t, "the redaction is marked done", func() bool { return len(pendingRedactions(t, env)) == 0 })

	// Issue 26: after the redaction, the deleted text is found nowhere;
	// the chat comes last, as what it stores holds its question.
	if n := keywordHits(t, env, "teal"); n != 0 {
		t.Errorf("the keyword index still finds the redacted text in %d documents", n)
	}
	conv := roomConversation(t, env, room)
	question := "what colour is my bike, teal?"
	for _, c := range []struct{ what, body string }{
		{"memory search", httpBody(t, "GET", api+memorySearch, "")},
		{"/v1/debug/rag", httpBody(t, "GET", api+"/v1/debug/rag?conversation_id="+conv, "")},
		{"a chat's used_context", httpBody(t, "POST", api+"/v1/chat",
			fmt.Sprintf(`{"prompt":%q,"conversation_id":%q,"entity":%q}`, question, conv, room))},
	} {
		if strings.Contains(strings.ReplaceAll(c.body, question, ""), "teal") {
			t.Errorf("%s still finds the redacted text:\n%s", c.what, c.body)
		}
	}
	asked = alice.Say(room, "!ada why")
	if why := alice.Wait("!ada why", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body; strings.Contains(why, "teal") {
		t.Errorf("!ada why still quotes the redacted text:\n%s", why)
	}
}

// httpBody makes one API call and returns its body, failing on a status
// other than 200.
func httpBody(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %v\n%s", method, url, resp.StatusCode, err, b)
	}
	return string(b)
}

// roomConversation is the conversation the bridge keeps the room's turns in.
func roomConversation(t *testing.T, env map[string]string, room id.RoomID) string {
	t.Helper()
	db, err := storage.Open(context.Background(), env["DATA_DIR"]+"/ada.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := db.Bridge().Room(context.Background(), room.String(), core.NewConversationID(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return r.ConversationID
}

// keywordHits counts the documents the keyword index (FTS5) finds for word.
func keywordHits(t *testing.T, env map[string]string, word string) int {
	t.Helper()
	db, err := storage.Open(context.Background(), env["DATA_DIR"]+"/ada.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Writer().QueryRow(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, word).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
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
