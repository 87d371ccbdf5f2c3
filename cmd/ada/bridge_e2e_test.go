package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/ocr/ocrtest"
)

// TestBridgeOverHTTP runs the real program (`ada up`) with the bridge
// pointed at its own API (ADA_API_URL, with API_KEY): the production wiring
// of runBridge, the HTTP client of the chat stream, OCR and the health
// probe, against a real homeserver and an encrypted room.
func TestBridgeOverHTTP(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	addr := freeAddr(t)
	env := bridgeEnv(t, hs, acct, llm, map[string]string{
		"LISTEN_ADDR": addr, "ADA_API_URL": "http://" + addr, "API_KEY": "bridge-test-key-16",
		"RAG_SUMMARY_EVERY_N": "100", "ROOM_MODELS": "big-model", "MEMBER_TOKENS_PER_DAY": "1000000",
	})
	p := startAda(t, "up", env)

	alice := bottest.NewMember(t, hs, "alice", true)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "over http", InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))

	llm.Script(llmtest.Reply{Tokens: []string{"answered ", "over HTTP"}})
	asked := alice.Say(room, "Ada, do you use the API?")
	reply := alice.Wait("reply", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	alice.Wait("✅", bottest.ReactionTo(asked, "✅"))
	if body := reply.Content.AsMessage().Body; body != "answered over HTTP" {
		t.Errorf("reply %q", body)
	}
	if !strings.Contains(p.logs.String(), "/v1/chat/stream") {
		t.Errorf("the answer did not go through POST /v1/chat/stream")
	}

	// An encrypted image: the bridge downloads and decrypts it, and reads it
	// through POST /v1/ocr/extract.
	t.Run("Image", func(t *testing.T) {
		ocrtest.RequireTesseract(t)
		img := ocrtest.Encode(t, ocrtest.Render(t, "Invoice 4711 due Friday"), "png")
		llm.Script(llmtest.Reply{Tokens: []string{"it is due on Friday"}})
		asked := alice.SendUpload(room, bottest.Upload{Data: img, MimeType: "image/png", FileName: "invoice.png",
			Caption: "Ada, when is this due?", Encrypted: true})
		alice.Wait("reply to the image", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		alice.Wait("✅ on the image", bottest.ReactionTo(asked, "✅"))
		reqs := llm.ChatRequests()
		prompt := fmt.Sprint(reqs[len(reqs)-1].Messages)
		if !strings.Contains(prompt, "Invoice 4711 due Friday") {
			t.Errorf("the OCR'd text is not in the model's prompt:\n%s", prompt)
		}
		if !strings.Contains(p.logs.String(), "/v1/ocr/extract") {
			t.Errorf("the image was not read through POST /v1/ocr/extract")
		}
	})

	// Room memory through the API: remember, list and forget call
	// /v1/memory; a redaction deletes the stored turns through
	// DELETE /v1/conversations/{id}/turns/{turn_id}, and with them the
	// memory learned from them.
	t.Run("RoomMemory", func(t *testing.T) {
		command := func(text string) string {
			t.Helper()
			asked := alice.Say(room, text)
			return alice.Wait("reply to "+text, bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body
		}
		if got := command("!ada remember the office plant is a fern"); !strings.Contains(got, "Remembered for this room") {
			t.Fatalf("remember: %q", got)
		}
		if got := command("!ada memories"); !strings.Contains(got, "1. alice: the office plant is a fern") {
			t.Fatalf("memories: %q", got)
		}
		if got := command("!ada forget 1"); !strings.Contains(got, "Forgotten") {
			t.Fatalf("forget: %q", got)
		}
		llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
			if r.Format != nil && strings.Contains(r.Messages[len(r.Messages)-1].Content, "my bike is red") {
				return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"alice's bike is red","importance":3,"replaces":[]}]}`}}, true
			}
			return llmtest.Reply{}, false
		})
		defer llm.Handle(nil)
		asked := alice.Say(room, "Ada, my bike is red")
		alice.Wait("✅ on the bike", bottest.ReactionTo(asked, "✅"))
		roomMemories := func() []core.Document {
			return documentsIn(t, env, core.Filter{Type: core.DocMemory, Scopes: []string{core.EntityScope(room.String())}})
		}
		waitFor(t, "the bike memory", func() bool { return len(roomMemories()) == 1 })
		if _, err := alice.Client.RedactEvent(context.Background(), room, asked); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the memory goes with the redacted message", func() bool { return len(roomMemories()) == 0 })
		if !strings.Contains(p.logs.String(), "/turns/") {
			t.Errorf("the turns were not deleted through the API")
		}
	})

	// The room's model and instructions travel in the request to the API,
	// and the model's token counts come back in done, for the quotas.
	// With no recent context, a reply to the first question brings it
	// along: fetched, decrypted and sent as the request's reply chain.
	t.Run("RoomSettings", func(t *testing.T) {
		for _, c := range []string{"!ada set model big-model", "!ada set instructions Answer in haiku.", "!ada set context 0"} {
			cmd := alice.Say(room, c)
			if got := alice.Wait("reply to "+c, bottest.ReplyTo(acct.UserID, cmd, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(got, "✅") {
				t.Fatalf("%s: %q", c, got)
			}
		}
		q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, a poem about this?"}
		q.RelatesTo = (&event.RelatesTo{}).SetReplyTo(asked)
		poem := alice.Send(room, q)
		alice.Wait("✅ on the poem", bottest.ReactionTo(poem, "✅"))
		reqs := llm.ChatRequests()
		last := reqs[len(reqs)-1]
		prompt := fmt.Sprint(last.Messages)
		if last.Model != "big-model" || !strings.Contains(prompt, "Answer in haiku.") {
			t.Errorf("the room's model and instructions did not reach the model: %q\n%s", last.Model, prompt)
		}
		if i := strings.Index(prompt, "## Messages this one replies to"); i < 0 || !strings.Contains(prompt[i:], "Ada, do you use the API?") {
			t.Errorf("the encrypted message replied to is not in the prompt:\n%s", prompt)
		}
	})

	status := alice.Say(room, "!ada status")
	body := alice.Wait("status", bottest.ReplyTo(acct.UserID, status, event.MsgNotice)).Content.AsMessage().Body
	if strings.Contains(body, " 0 model tokens") || !strings.Contains(body, "model tokens in the last day") {
		t.Errorf("status should show the tokens the API reported:\n%s", body)
	}
	for _, want := range []string{"Ada API: ✅ http://" + addr, "Language model: ✅ ollama · " + llmtest.ModelName, "Memory store: ✅", "Joined rooms: 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("status lacks %q:\n%s", want, body)
		}
	}

	// `ada up` serves the memory page, so `!ada web` only lacks PUBLIC_URL
	// (a bridge alone would say the page runs with `ada up`).
	web := alice.Say(room, "!ada web")
	if got := alice.Wait("reply to !ada web", bottest.ReplyTo(acct.UserID, web, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(got, "PUBLIC_URL") {
		t.Errorf("`!ada web` under `ada up` without PUBLIC_URL: %q", got)
	}

	// LLM down: the API's error event becomes ❌ and a plain notice.
	llm.Script(llmtest.Reply{Status: 500, Error: "model crashed"})
	failed := alice.Say(room, "Ada, and now?")
	alice.Wait("❌", bottest.ReactionTo(failed, "❌"))
	notice := alice.Wait("notice", bottest.ReplyTo(acct.UserID, failed, event.MsgNotice)).Content.AsMessage().Body
	if !strings.Contains(notice, "language model") {
		t.Errorf("failure notice %q", notice)
	}
}

// freeAddr reserves a loopback port for a listener whose address must be
// known before the program starts (ADA_API_URL points at it).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
