// Package websearch is the web_search specialist: it asks a SearXNG-compatible
// metasearch service (GET /search?q=...&format=json) and turns the results
// into numbered text for the model. It imports only core and
// core/internal/remote (its HTTP errors).
package websearch
