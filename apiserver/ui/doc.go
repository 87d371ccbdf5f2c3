// Package ui is the memory page: a server-rendered web page under /ui/ where
// an operator reviews, corrects and forgets what Ada remembers
// (DECISIONS.md, "The memory page"). It is a net/http handler the API server
// mounts beside its routes; it is not part of the OpenAPI document.
//
// Everything goes through the same core.Service methods as the JSON API, so
// the page has no storage path of its own. Templates and the stylesheet are
// embedded: no build step, no CDN, and no script at all, so it works with
// JavaScript off and the Content-Security-Policy allows only the page's own
// origin.
//
// Sessions live in memory (a random id in an HttpOnly, SameSite=Strict
// cookie); a restart logs everyone out, which is acceptable for one
// operator. Member links (`!ada web`) are not built yet.
package ui
