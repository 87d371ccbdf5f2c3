package main

import (
	"log/slog"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/specialists/mcptools"
)

// mcpHealth reports the MCP servers for /v1/healthz; nil without any.
func mcpHealth(m *mcptools.Manager) func() []wire.MCPServerStatus {
	if m == nil || len(m.Status()) == 0 {
		return nil
	}
	return func() []wire.MCPServerStatus {
		var out []wire.MCPServerStatus
		for _, st := range m.Status() {
			s := wire.MCPServerStatus{Name: st.Name, Transport: st.Transport, OK: st.Up, Tools: st.Tools, Restarts: st.Restarts}
			if st.Error != "" {
				s.Error = &st.Error
			}
			out = append(out, s)
		}
		return out
	}
}

// mcpToolsInto puts a server's current tools into the registry, in place
// of its earlier ones: a server that starts late or whose tools change is
// offered without restarting Ada.
func mcpToolsInto(reg *core.Registry, log *slog.Logger) func(string, []core.Specialist) {
	return func(server string, tools []core.Specialist) {
		if err := reg.SetTagged(mcptools.ServerTag(server), tools...); err != nil {
			log.Error("MCP server's tools could not be registered", "mcp_server", server, "error", err)
		}
	}
}
