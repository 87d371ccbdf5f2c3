// Package remote holds the HTTP plumbing shared by Ada's clients of remote
// services: the LLM and embedding clients (Endpoint: requests against an
// operator-configured base URL) and the specialists (Service: one JSON GET).
// Both turn transport failures, bad statuses and malformed bodies into
// core.Errors whose messages never name a secret. It is internal to core so
// that every package under core may import it; it must not import anything
// from Ada outside core.
package remote
