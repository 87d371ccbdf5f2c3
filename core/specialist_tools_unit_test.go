package core

import (
	"context"
	"strings"
	"testing"
)

// mcpFake is a specialist tagged as an MCP server's tool.
type mcpFake struct{ *fakeSpecialist }

func (s mcpFake) Info() SpecialistInfo {
	info := s.fakeSpecialist.Info()
	info.Tags = []string{TagMCP}
	return info
}

// TestMCPToolsOnlyWhereAllowed: a chat without MCPTools (a room's by
// default) is neither offered an MCP tool nor runs it when the model asks
// anyway; one that names the tool or its server is, and built-in
// specialists are offered either way.
func TestMCPToolsOnlyWhereAllowed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tools   []string
		offered bool
	}{
		{"none", nil, false},
		{"another tool", []string{"wiki.find"}, false},
		{"by name", []string{"wiki.echo"}, true},
		{"by server", []string{"wiki"}, true},
		{"all", []string{AllTools}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := mcpFake{&fakeSpecialist{name: "wiki.echo", out: "echoed"}}
			builtIn := &fakeSpecialist{name: "weather", out: "rain"}
			llm := &fakeLLM{replies: []reply{
				{tokens: []string{`SPECIALIST_REQUEST[wiki.echo:{"q":"x"}]`}},
				{tokens: []string{"Done."}},
			}}
			u := newUnit(t, unitOptions(), llm, tool, builtIn)
			var events []Event
			if _, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "echo", MCPTools: tc.tools}, u.recordEmit(&events)); err != nil {
				t.Fatal(err)
			}
			system := llm.calls()[0].Messages[0].Content
			if got := strings.Contains(system, "- wiki.echo"); got != tc.offered {
				t.Errorf("offered %t, want %t:\n%s", got, tc.offered, system)
			}
			if !strings.Contains(system, "- weather") {
				t.Error("the built-in specialist was not offered")
			}
			ran := len(tool.args) == 1
			if ran != tc.offered {
				t.Errorf("ran %t, want %t", ran, tc.offered)
			}
			for _, ev := range events {
				if ev.Type == EventSpecialistResult && ev.OK != tc.offered {
					t.Errorf("result %+v", ev)
				}
			}
		})
	}
}

// TestRegistrySetTagged: an MCP server's tools are replaced as a group,
// the others kept, while chats read the registry (run with -race); a tool
// without the group's tag is refused and changes nothing.
func TestRegistrySetTagged(t *testing.T) {
	builtIn := &fakeSpecialist{name: "weather", out: "rain"}
	reg, err := NewRegistry(builtIn)
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		var out []string
		for _, info := range reg.Infos() {
			out = append(out, info.Name)
		}
		return strings.Join(out, ",")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			reg.offered([]string{AllTools}, false)
			reg.lookup("wiki.echo")
		}
	}()
	if err := reg.SetTagged(TagMCP, mcpFake{&fakeSpecialist{name: "wiki.echo"}}, mcpFake{&fakeSpecialist{name: "wiki.find"}}); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "weather,wiki.echo,wiki.find" {
		t.Errorf("after adding: %s", got)
	}
	if err := reg.SetTagged(TagMCP, mcpFake{&fakeSpecialist{name: "wiki.find"}}); err != nil {
		t.Fatal(err)
	}
	<-done
	if got := names(); got != "weather,wiki.find" {
		t.Errorf("after replacing: %s", got)
	}
	if err := reg.SetTagged(TagMCP, &fakeSpecialist{name: "untagged"}); err == nil || names() != "weather,wiki.find" {
		t.Errorf("an untagged tool: %v, %s", err, names())
	}
}
