// Package remote holds the HTTP plumbing shared by Ada's LLM and embedding
// clients: building requests against an operator-configured base URL, and
// turning transport failures, bad statuses and malformed bodies into
// core.Errors that name the backend and its address but never a secret.
// It must not import anything from Ada outside core.
package remote
