// Package mcp is Ada's Model Context Protocol server: memory tools over
// core's memory methods, served over streamable HTTP (Handler, hosted by
// apiserver at /mcp) or stdio (ada mcp). It owns no domain rules: core
// validates every input. It must not import apiserver or storage.
package mcp
