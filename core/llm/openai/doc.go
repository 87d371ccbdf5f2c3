// Package openai implements core.LLM and core.Embedder over the
// OpenAI-compatible HTTP API that llama.cpp's server, vLLM, LM Studio and
// OpenAI speak: streaming /v1/chat/completions (SSE) and /v1/embeddings.
// It imports only core and core/llm/internal.
package openai
