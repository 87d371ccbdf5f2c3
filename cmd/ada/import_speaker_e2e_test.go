package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestImportEmbedsATurnWithItsSpeaker: `ada import` into a store of another
// embedder embeds a turn as the chat does, "Name: text", so a question
// about the speaker finds what they said in the first person; the stored
// text stays what was said.
func TestImportEmbedsATurnWithItsSpeaker(t *testing.T) {
	ctx := context.Background()
	src := testEnv(t, nil)
	db := openEnvStore(t, src)
	if err := db.CheckEmbedder(ctx, "hash:v1"); err != nil {
		t.Fatal(err)
	}
	idx, text := 0, "I love climbing"
	turn := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector("Priya: " + text), Meta: core.Metadata{
		Type: core.DocTurn, Timestamp: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), Source: core.SourceChat, Scope: core.ScopeGlobal,
		ConversationID: core.NewConversationID(), Role: "user", TurnIndex: &idx, Speaker: "Priya"}}
	if err := db.Put(ctx, turn); err != nil {
		t.Fatal(err)
	}
	db.Close()
	file := exportTo(t, src)

	fake := llmtest.New(t)
	dst := testEnv(t, map[string]string{"EMBED_BACKEND": "ollama", "EMBED_BASE_URL": fake.URL(), "EMBED_MODEL": "nomic-embed-text"})
	if out, err := runCmd(ctx, dst, nil, "import", file); err != nil {
		t.Fatalf("ada import: %v\n%s", err, out)
	}
	var inputs []string
	for _, r := range fake.Requests() {
		inputs = append(inputs, r.Input...)
	}
	if !slices.Contains(inputs, "Priya: "+text) || slices.Contains(inputs, text) {
		t.Errorf("the new embedder was given %q; want the turn with its speaker, %q", inputs, "Priya: "+text)
	}
	if got := readStore(t, dst).docs[turn.ID]; got.Text != text || got.Meta.Speaker != "Priya" {
		t.Errorf("imported turn: text %q, speaker %q", got.Text, got.Meta.Speaker)
	}
}
