// Package core owns Ada's domain: documents, memories, chat, prompt assembly,
// specialists and the small interfaces (Store, Embedder, LLM, Specialist) that
// the adapters implement. It must not import apiserver, bot, storage or config.
package core
