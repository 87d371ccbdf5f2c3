package apiserver

import "github.com/valyala/fasthttp"

// routeTable is the whole HTTP surface in one place. A test checks it against
// openapi.json, so the document cannot drift from the routes.
func (s *Server) routeTable() []route {
	const get, post, del = fasthttp.MethodGet, fasthttp.MethodPost, fasthttp.MethodDelete
	return []route{
		{method: get, pattern: "/v1/healthz", handler: s.handleHealth, public: true, summary: "Health and dependency status"},
		{method: get, pattern: "/v1/info", handler: s.handleInfo, summary: "Capabilities and endpoint list"},
		{method: get, pattern: "/v1/schema", handler: s.handleSchema, summary: "JSON Schemas of the document types"},
		{method: get, pattern: "/v1/memory", handler: s.handleMemorySearch, summary: "Search or list memories"},
		{method: post, pattern: "/v1/memory", handler: s.handleMemoryCreate, summary: "Create a memory"},
		{method: del, pattern: "/v1/memory/{id}", handler: s.handleMemoryDelete, summary: "Delete a memory"},
		{method: get, pattern: "/openapi.json", handler: s.handleOpenAPI, public: true, summary: "OpenAPI 3.0 document"},
		{method: get, pattern: "/docs", handler: s.handleDocs, public: true, summary: "Interactive documentation"},
		{method: get, pattern: "/docs/{asset}", handler: s.handleDocsAsset, public: true, summary: "Documentation assets"},
	}
}
