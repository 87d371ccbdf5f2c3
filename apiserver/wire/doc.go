// Package wire is Ada's HTTP contract in one place, for the server
// (apiserver) and the Go client the bridge uses (apiserver/client): the
// request bodies and how their types decode, the query parameters of the
// memory listing, the health and memory-page answers, the Server-Sent Events
// of a chat stream, and the table from error kinds to HTTP status codes and
// back. Rules about values live in core; this package only names fields and
// decodes types.
package wire
