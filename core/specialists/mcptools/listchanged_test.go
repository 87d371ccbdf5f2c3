package mcptools

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
)

// growingServerEnv makes this test binary, started as a stdio MCP server,
// run growingServer instead of the tests.
const growingServerEnv = "MCPTOOLS_TEST_GROWING_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(growingServerEnv) == "1" {
		growingServer()
		return
	}
	os.Exit(m.Run())
}

// growingServer is a real MCP server (the official SDK's) over stdio whose
// tool "grow" adds the tool "grown": the SDK then announces
// notifications/tools/list_changed. The everything server's tools never
// change after it starts.
func growingServer() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "growing", Version: "test"}, nil)
	schema := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "grow", Description: "adds the tool grown", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv.AddTool(&mcp.Tool{Name: "grown", Description: "came later", InputSchema: schema},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown here"}}}, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil
		})
	srv.Run(context.Background(), &mcp.StdioTransport{})
}

func names(sps []core.Specialist) []string {
	var out []string
	for _, sp := range sps {
		out = append(out, sp.Info().Name)
	}
	return out
}

// A server that announces its tools changed is listed again: the new tool
// goes to Options.Tools, Specialists and Status, and runs.
func TestToolListChangedIsListedAgain(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	lists := make(chan []string, 16)
	m := startManager(t, Options{Tools: func(server string, tools []core.Specialist) {
		if server == "growing" {
			lists <- names(tools)
		}
	}}, Server{Name: "growing", Command: exe, Env: map[string]string{growingServerEnv: "1"}})
	next := func(what string) []string {
		t.Helper()
		select {
		case l := <-lists:
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("no list of tools %s", what)
			return nil
		}
	}
	if got := next("at start"); !slices.Equal(got, []string{"growing.grow"}) {
		t.Fatalf("at start: %v", got)
	}
	if out, err := call(t, toolNamed(t, m, "growing.grow"), `{}`); err != nil || out != "grew" {
		t.Fatalf("grow: %q %v", out, err)
	}
	got := next("after list_changed")
	for !slices.Contains(got, "growing.grown") { // a list may come before the change
		got = next("with growing.grown")
	}
	if out, err := call(t, toolNamed(t, m, "growing.grown"), `{}`); err != nil || out != "grown here" {
		t.Fatalf("grown: %q %v", out, err)
	}
	if st := m.Status(); len(st) != 1 || st[0].Tools != 2 {
		t.Errorf("status %+v", st)
	}
}
