package bot

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestToolsSetting: a room chooses MCP tools only within MCP_ROOM_TOOLS,
// and its answers carry the choice (none by default).
func TestToolsSetting(t *testing.T) {
	st := toolsSetting()
	bound := Options{RoomTools: []string{"wiki", "everything.echo"}}
	for raw, want := range map[string]string{
		"none": "none", "ALL": "all", "wiki": "wiki", "wiki.find everything.echo": "wiki.find,everything.echo",
		"everything.echo,wiki": "everything.echo,wiki",
	} {
		if v, refusal := st.parse(bound, raw); v != want || refusal != "" {
			t.Errorf("parse(%q) = %q, %q; want %q", raw, v, refusal, want)
		}
	}
	for _, raw := range []string{"everything", "everything.add", "", "wiki, all"} {
		if v, refusal := st.parse(bound, raw); refusal == "" {
			t.Errorf("parse(%q) = %q, want a refusal", raw, v)
		}
	}
	if _, refusal := st.parse(Options{}, "all"); !strings.Contains(refusal, "MCP_ROOM_TOOLS") {
		t.Errorf("all without MCP_ROOM_TOOLS: %q", refusal)
	}

	req := core.ChatRequest{MCPTools: []string{"stale"}}
	answerSettings{}.applyTo(&req)
	if req.MCPTools != nil {
		t.Errorf("default: %v, want none", req.MCPTools)
	}
	var s answerSettings
	st.apply("wiki,everything.echo", &s)
	s.applyTo(&req)
	if !reflect.DeepEqual(req.MCPTools, []string{"wiki", "everything.echo"}) {
		t.Errorf("chosen: %v", req.MCPTools)
	}
	s = answerSettings{}
	st.apply("none", &s)
	if s.tools != "" {
		t.Errorf("none: %q", s.tools)
	}
}
