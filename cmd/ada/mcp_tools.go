package main

import (
	"github.com/ada-chat/ada/apiserver/wire"
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
