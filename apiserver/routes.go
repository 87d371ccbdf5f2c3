package apiserver

import "github.com/valyala/fasthttp"

// routeTable is the whole HTTP surface in one place. A test checks it against
// openapi.json, so the document cannot drift from the routes.
func (s *Server) routeTable() []route {
	const get, post, patch, del = fasthttp.MethodGet, fasthttp.MethodPost, fasthttp.MethodPatch, fasthttp.MethodDelete
	return []route{
		{method: get, pattern: "/v1/healthz", handler: s.handleHealth, public: true, summary: "Health and dependency status"},
		{method: get, pattern: "/v1/readyz", handler: s.handleReady, public: true, summary: "Readiness: every configured component works"},
		{method: get, pattern: "/v1/info", handler: s.handleInfo, summary: "Capabilities and endpoint list"},
		{method: get, pattern: "/v1/specialists", handler: s.handleSpecialists, summary: "List specialists"},
		{method: get, pattern: "/v1/schema", handler: s.handleSchema, summary: "JSON Schemas of the document types"},
		{method: post, pattern: "/v1/chat", json: true, handler: s.handleChat, summary: "Chat, one JSON reply"},
		{method: post, pattern: "/v1/chat/stream", json: true, handler: s.handleChatStream, summary: "Chat, Server-Sent Events stream"},
		{method: post, pattern: "/v1/chat/completions", json: true, handler: s.handleCompletion, openai: true, summary: "OpenAI-compatible chat completion, with Ada's memory"},
		{method: get, pattern: "/v1/models", handler: s.handleModels, openai: true, summary: "OpenAI-compatible model list"},
		{method: get, pattern: "/v1/memory", handler: s.handleMemorySearch, summary: "Search or list memories"},
		{method: post, pattern: "/v1/memory", json: true, handler: s.handleMemoryCreate, summary: "Create a memory"},
		{method: get, pattern: "/v1/memory/{id}", handler: s.handleMemoryGet, summary: "Get a memory"},
		{method: patch, pattern: "/v1/memory/{id}", json: true, handler: s.handleMemoryPatch, summary: "Change a memory"},
		{method: del, pattern: "/v1/memory/{id}", handler: s.handleMemoryDelete, summary: "Delete a memory"},
		{method: del, pattern: "/v1/memory", handler: s.handleMemoryForget, summary: "Forget an entity or a person"},
		{method: get, pattern: "/v1/memory/{id}/history", handler: s.handleMemoryHistory, summary: "History of a memory"},
		{method: get, pattern: "/v1/conversations/recent", handler: s.handleRecentConversations, summary: "Recent conversations"},
		{method: get, pattern: "/v1/conversations/{conversation_id}", handler: s.handleConversation, summary: "Turns of one conversation"},
		{method: del, pattern: "/v1/conversations/{conversation_id}", handler: s.handleConversationDelete, summary: "Delete a conversation"},
		{method: del, pattern: "/v1/conversations/{conversation_id}/turns/{turn_id}", handler: s.handleTurnDelete, summary: "Delete a turn and what was learned only from it"},
		{method: get, pattern: "/v1/media/musicprovider", handler: s.handleMusicProvider, summary: "Recent listening context"},
		{method: post, pattern: "/v1/ocr/extract", handler: s.handleOCR, summary: "Extract text from an image"},
		{method: get, pattern: "/v1/debug/rag", handler: s.handleDebugRAG, summary: "Vector-store diagnostics (RAG_DEBUG)"},
		{method: get, pattern: "/v1/debug/prompt", handler: s.handleDebugPrompt, summary: "Assembled prompt (RAG_DEBUG)"},
		{method: get, pattern: "/metrics", handler: s.handleMetrics, auth: s.authorizeMetrics, summary: "Prometheus metrics"},
		{method: post, pattern: "/mcp", json: true, handler: s.handleMCP, summary: "Model Context Protocol: Ada's memory tools (streamable HTTP, stateless)"},
		{method: get, pattern: "/openapi.json", handler: s.handleOpenAPI, public: true, summary: "OpenAPI 3.0 document"},
		{method: get, pattern: "/docs", handler: s.handleDocs, public: true, summary: "Interactive documentation"},
		{method: get, pattern: "/docs/{asset}", handler: s.handleDocsAsset, public: true, summary: "Documentation assets"},
	}
}
