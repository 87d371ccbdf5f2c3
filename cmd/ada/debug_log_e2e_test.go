package main

import (
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestDebugLogShowsRetrieval: at LOG_LEVEL=DEBUG each chat logs what
// retrieval chose (counts, mode, time), never the message text.
func TestDebugLogShowsRetrieval(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", map[string]string{"LOG_LEVEL": "DEBUG"})
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam keeps bees in the orchard"}, nil)
	conv := core.NewConversationID()
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "where does Sam keep the bees", "conversation_id": conv}, nil); st != 200 {
		t.Fatal(st)
	}
	var line string
	for _, l := range strings.Split(ada.logs.String(), "\n") {
		if strings.Contains(l, "msg=retrieved") && strings.Contains(l, conv) {
			line = l
		}
	}
	// "request_id": the request's logger reaches core through the context.
	for _, want := range []string{"memories=1", "mode=hybrid", "ms=", "request_id="} {
		if !strings.Contains(line, want) {
			t.Fatalf("retrieval debug line lacks %q: %q", want, line)
		}
	}
	if strings.Contains(ada.logs.String(), "orchard") || strings.Contains(ada.logs.String(), "keep the bees") {
		t.Fatal("message or memory text reached the log")
	}
}
