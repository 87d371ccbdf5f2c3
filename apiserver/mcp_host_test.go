package apiserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/mcp"
	"github.com/ada-chat/ada/core"
)

// mcpAccept is what MCP's streamable HTTP clients send.
const mcpAccept = "application/json, text/event-stream"

func mcpCall(body string, want int) call { return jsonCall("POST", "/mcp", "/mcp", body, want) }

// checkMCP validates /mcp's answers against openapi.json on the live API:
// the tool list, a tool call, a tool's failure (a JSON-RPC result with
// isError), a notification (202), a broken message and a GET (405).
func (a *liveAPI) checkMCP() {
	t := a.t
	var list struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal(a.do(mcpCall(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200)), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "add_memory,delete_memory,list_memories,recall_conversation,search_memory,update_memory" {
		t.Errorf("tools/list: %s", got)
	}
	body := a.do(mcpCall(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"The user's MCP client is a desktop app.","entity":"mcp-test"}}}`, 200))
	if !strings.Contains(string(body), `"id":"doc-`) || strings.Contains(string(body), `"isError":true`) {
		t.Errorf("add_memory: %s", body)
	}
	body = a.do(mcpCall(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"desktop app","entity":"mcp-test"}}}`, 200))
	if !strings.Contains(string(body), `"explain"`) {
		t.Errorf("search_memory: no explain in %s", body)
	}
	body = a.do(mcpCall(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"update_memory","arguments":{"id":"doc-00000000-0000-4000-8000-000000000000","importance":2}}}`, 200))
	if !strings.Contains(string(body), `"isError":true`) || !strings.Contains(string(body), "not found") {
		t.Errorf("update_memory of an unknown id: %s", body)
	}
	a.do(mcpCall(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202))
	a.do(mcpCall(`{"jsonrpc":`, 400))
	a.doUnrouted("GET", "/mcp", "MethodNotAllowed", 405)
}

// blockingMemories is a core whose memory search runs until its context
// ends, and says when it starts and how it ended.
type blockingMemories struct {
	mcp.Memories
	started chan struct{}
	ended   chan error
}

func (b *blockingMemories) MemoryPage(ctx context.Context, _ core.MemoryQuery) (core.MemoryPageResult, error) {
	close(b.started)
	<-ctx.Done()
	b.ended <- context.Cause(ctx)
	return core.MemoryPageResult{}, ctx.Err()
}

// A client that closes its connection during a tool call cancels the call's
// work: the MCP handler runs on the request's context, which the disconnect
// watcher ends, not on fasthttp's, which would end only at shutdown.
func TestMCPClientThatLeavesCancelsTheToolCall(t *testing.T) {
	mem := &blockingMemories{started: make(chan struct{}), ended: make(chan error, 1)}
	srv := New(nil, Deps{MCP: mcp.Handler(mem, mcp.Options{})},
		Config{MaxBodyBytes: 1 << 20, RequestTimeout: time.Minute}, slog.New(slog.DiscardHandler))
	url := serveOnLoopback(t, srv, nil)

	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"anything"}}}`
	req := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: " + mcpAccept +
		"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mem.started:
	case err := <-mem.ended:
		t.Fatalf("the search ended before it started: %v", err)
	}
	conn.Close()
	if cause := <-mem.ended; cause != errClientGone {
		t.Errorf("the search ended with %v, want errClientGone", cause)
	}
}

// A browser MCP client of a CORS origin may send MCP's headers and the
// entity scope to /mcp.
func TestMCPPreflightAllowsMCPHeaders(t *testing.T) {
	srv := New(nil, Deps{MCP: mcp.Handler(&blockingMemories{}, mcp.Options{})},
		Config{CORSOrigins: []string{"https://app.example"}}, slog.New(slog.DiscardHandler))
	url := serveOnLoopback(t, srv, nil)
	req, _ := http.NewRequest("OPTIONS", url+"/mcp", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version, x-ada-entity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"authorization", "content-type", "mcp-protocol-version", "x-ada-entity"} {
		if resp.StatusCode != 204 || !strings.Contains(allowed, h) {
			t.Errorf("preflight: %d, Access-Control-Allow-Headers %q lacks %s", resp.StatusCode, allowed, h)
		}
	}
}
