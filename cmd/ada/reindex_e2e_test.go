package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// runOnce runs a one-shot command (reindex, migrate) of the real program.
func runOnce(t *testing.T, cmd string, env map[string]string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	// A bound, so that a server command that wrongly starts cannot hang the test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := run(ctx, runEnv{args: []string{cmd}, lookupEnv: mapEnv(env),
		stdout: &out, stderr: io.Discard})
	return out.String(), err
}

func TestSwitchingEmbedderNeedsReindex(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	for _, text := range []string{"Sam drinks black coffee", "The office closes at six", "Alpha ships on Fridays"} {
		ada.call("POST", "/v1/memory", map[string]any{"text": text}, nil)
	}
	ada.stop()

	fake := llmtest.New(t)
	env["EMBED_BACKEND"], env["EMBED_BASE_URL"], env["EMBED_MODEL"] = "ollama", fake.URL(), "nomic-embed-text"
	_, err := runOnce(t, "serve", env)
	if err == nil || !strings.Contains(err.Error(), "ada reindex") || !strings.Contains(err.Error(), "hash:v1") || !strings.Contains(err.Error(), "ollama:nomic-embed-text") {
		t.Fatalf("starting with another embedder: %v, want a refusal naming both and `ada reindex`", err)
	}
	out, err := runOnce(t, "reindex", env)
	if err != nil {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	if !strings.Contains(out, "reindex: ") || !strings.Contains(out, "reindex complete") {
		t.Fatalf("reindex printed no progress:\n%s", out)
	}
	embedded := 0
	for _, r := range fake.Requests() {
		embedded += len(r.Input)
	}
	if embedded < 3 {
		t.Fatalf("the new embedder saw %d texts, want every document", embedded)
	}
	ada = startAda(t, "serve", env)
	var found memoryList
	ada.call("GET", "/v1/memory?search=Sam+drinks+black+coffee", nil, &found)
	if found.Count == 0 || found.Items[0].Text != "Sam drinks black coffee" {
		t.Fatalf("after reindex the memory must be found with the new embedder: %+v", found)
	}
}
