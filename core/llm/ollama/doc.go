// Package ollama implements core.LLM and core.Embedder over Ollama's native
// HTTP API: streaming /api/chat (NDJSON, explicit think flag, separate
// thinking field) and /api/embed. It imports only core and core/llm/internal.
package ollama
