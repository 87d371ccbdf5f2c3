// Package apiserver is the JSON/HTTP adapter over core, on fasthttp. It owns
// routing, request decoding, error rendering, SSE framing and the OpenAPI
// document. It must not import bot, storage or a specialist: cmd/ada hands
// it the music provider and the OCR extractor (Deps) in core's types.
package apiserver
