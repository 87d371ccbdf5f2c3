package core

import (
	"slices"
	"strings"
)

// TagMCP marks the specialists that are tools of the operator's MCP
// servers (core/specialists/mcptools). A chat offers them only as its
// ChatRequest.MCPTools allow; built-in specialists are always offered.
const TagMCP = "mcp"

// TagRoom marks the specialists that act on the chat room a request comes
// from (a reminder posted there later): they are offered only to chats
// with a RoomID.
const TagRoom = "room"

// AllTools in a tools list allows every MCP tool.
const AllTools = "all"

// ToolAllowed reports whether list allows the MCP tool name
// ("server.tool"): an entry names the tool, its server, or is AllTools.
// A nil or empty list allows none.
func ToolAllowed(list []string, name string) bool {
	server, _, _ := strings.Cut(name, ".")
	for _, e := range list {
		if e == AllTools || e == name || e == server {
			return true
		}
	}
	return false
}

func isMCPTool(info SpecialistInfo) bool { return slices.Contains(info.Tags, TagMCP) }

// offered are the enabled specialists a chat with these MCP tools, in a
// room or not, may use.
func (r *Registry) offered(mcpTools []string, inRoom bool) []registryEntry {
	var out []registryEntry
	for _, e := range r.enabled() {
		if offers(e.info, mcpTools, inRoom) {
			out = append(out, e)
		}
	}
	return out
}

// allows reports whether a chat with these MCP tools, in a room or not,
// may run name.
func (r *Registry) allows(name string, mcpTools []string, inRoom bool) bool {
	e, ok := r.lookup(name)
	return ok && offers(e.info, mcpTools, inRoom)
}

func offers(info SpecialistInfo, mcpTools []string, inRoom bool) bool {
	if slices.Contains(info.Tags, TagRoom) && !inRoom {
		return false
	}
	return !isMCPTool(info) || ToolAllowed(mcpTools, info.Name)
}
