// Package llmtest is a scripted fake LLM server for tests. It speaks both
// wire protocols Ada uses, Ollama's NDJSON /api/chat and the OpenAI SSE
// /v1/chat/completions, over real HTTP on 127.0.0.1, plus the models,
// version and embedding endpoints. Tests queue replies, inspect the requests
// received and see whether the client went away. It imports only core.
package llmtest
