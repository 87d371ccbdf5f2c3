// Package apiserver is the JSON/HTTP adapter over core, on fasthttp. It owns
// routing, request decoding, error rendering, SSE framing and the OpenAPI
// document. It must not import bot or storage.
package apiserver
