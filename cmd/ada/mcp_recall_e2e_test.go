package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// recall_conversation over /mcp finds the turn of a real conversation that
// bears on the query, ranked as the chat recalls it, with its explain.
func TestMCPRecallConversationFindsTheRelevantTurn(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"Noted"}}, llmtest.Reply{Tokens: []string{"Nice"}}, llmtest.Reply{Tokens: []string{"Sure"}})
	var first chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "My sister Ingrid lives in Trondheim"}, &first)
	conv := first.ConversationID
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "I bought a red bicycle today", "conversation_id": conv}, nil)
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "Remind me to water the plants", "conversation_id": conv}, nil)

	resp := mcpPost(t, ada.URL, "tools/call", map[string]any{"name": "recall_conversation",
		"arguments": map[string]any{"conversation_id": conv, "query": "where does Ingrid live"}})
	defer resp.Body.Close()
	var rpc struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Turns []core.ContextItem `json:"turns"`
				Count int                `json:"count"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rpc); err != nil || resp.StatusCode != 200 || rpc.Result.IsError {
		t.Fatalf("status %d, %v, %+v", resp.StatusCode, err, rpc)
	}
	turns := rpc.Result.StructuredContent.Turns
	var best *core.ContextItem
	for i, tu := range turns {
		if tu.Explain != nil && (best == nil || *tu.Score > *best.Score) {
			best = &turns[i]
		}
	}
	if best == nil || !strings.Contains(best.Text, "Trondheim") || best.Reason != core.ReasonRecalled || best.ID == "" {
		t.Fatalf("the best recalled turn is %+v; all: %+v", best, turns)
	}
}

// mcpPost sends one JSON-RPC request to base's /mcp as MCP clients do.
func mcpPost(t *testing.T, base, method string, params any) *http.Response {
	t.Helper()
	return mcpPostAs(t, base, "", method, params)
}

// mcpPostAs is mcpPost from a client scoped to entity (X-Ada-Entity; ""
// for none).
func mcpPostAs(t *testing.T, base, entity, method string, params any) *http.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if entity != "" {
		req.Header.Set("X-Ada-Entity", entity)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
