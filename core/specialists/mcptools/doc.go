// Package mcptools makes the tools of the operator's MCP servers
// (MCP_SERVERS_FILE, the common {"mcpServers": {...}} format) specialists:
// it starts each stdio server with a minimal environment or connects to a
// streamable-HTTP server with its headers, lists the tools, and calls them
// with the official Go SDK's client when the model asks.
package mcptools
