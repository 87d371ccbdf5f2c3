// Package client is a Go client of Ada's own HTTP API: the chat stream
// (POST /v1/chat/stream, decoded from SSE into core.Event), OCR of an image
// (POST /v1/ocr/extract) and the health probe. The Matrix bridge uses it
// when ADA_API_URL is set. It imports core only; errors come back as
// core.Error kinds with client-safe messages.
package client
