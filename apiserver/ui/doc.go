// Package ui is the memory page: a server-rendered web page under /ui/ where
// an operator, or a room member, reviews, corrects and forgets what Ada
// remembers (DECISIONS.md, "The memory page"; issue 30). It is a net/http
// handler the API server mounts beside its routes on the same port; it is
// not part of the OpenAPI document.
//
// Everything goes through core.Service (the API's memory methods and the
// page's reads in core/memory_browse.go), so the page has no storage path
// of its own. Templates and the stylesheet are embedded: no build step, no
// CDN, and no script at all, so it works with JavaScript off and the
// Content-Security-Policy allows only the page's own origin.
//
// Two ways in: the operator types API_KEY (POST /ui/login), a room member
// opens a one-time link from `!ada web` (GET /ui/login/{token} shows a
// button, or says the link is spent; its POST redeems the token through
// Members, so that a URL preview does not spend it). A member's session is scoped at each request to what
// came from or is about them and to the rooms they are joined to now.
// Sessions live in memory (a random id in an HttpOnly, SameSite=Strict
// cookie); a member's session is also kept in the bridge's state, by the
// hash of its id, so that it survives a restart (kept.go). Only the
// operator's sessions end with a restart.
package ui
