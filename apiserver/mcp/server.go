package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
)

// Memories is what the tools need of Ada's core; *core.Service implements
// it. These are the methods apiserver's memory and debug routes call.
type Memories interface {
	CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error)
	MemoryFor(ctx context.Context, a core.Actor, id string, may func(core.Actor, core.Metadata) bool) (core.Memory, error)
	ConversationFor(ctx context.Context, a core.Actor, id string) error
	PatchMemory(ctx context.Context, id string, p core.MemoryPatch) (core.Memory, error)
	DeleteMemory(ctx context.Context, id string) error
	MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error)
	DebugPrompt(ctx context.Context, req core.ChatRequest) (core.Prompt, error)
}

// EntityHeader names, on /mcp, the entity a client's configuration is
// scoped to (see Options.Entity).
const EntityHeader = "X-Ada-Entity"

// Options configure one server.
type Options struct {
	// Entity scopes every tool call to one person's memories: calls that
	// omit entity get it, calls that name another are refused, update and
	// delete reach only that entity's memories and recall_conversation
	// only its conversations (core.Actor.EndUser). Empty: each call says
	// (or not) which entity it means. Over HTTP the client's EntityHeader
	// sets it per request when this is empty.
	Entity string
	// Version is Ada's version, reported to clients.
	Version string
	// Log receives the internal causes of failed calls; clients see only
	// core's safe messages.
	Log *slog.Logger
}

// NewServer builds an MCP server with Ada's memory tools.
func NewServer(svc Memories, opts Options) *sdk.Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "ada", Title: "Ada memory", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "Ada's long-term memory: search_memory before answering about a person or the past, " +
			"add_memory for facts worth keeping. Results carry ids and an explain of each hit.",
	})
	t := &tools{svc: svc, entity: strings.TrimSpace(opts.Entity), log: opts.Log}
	t.register(s)
	return s
}

// Handler serves MCP's streamable HTTP transport in stateless mode: every
// POST is a whole exchange, so no session outlives its request and any
// instance behind a load balancer can answer. Replies are plain JSON, not
// an event stream: the tools send no progress, and a JSON body is what a
// buffering reverse proxy passes on unchanged. The caller authenticates
// (apiserver checks API_KEY before the request gets here).
func Handler(svc Memories, opts Options) http.Handler {
	srv := NewServer(svc, opts)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		// The SDK's DNS-rebinding check stays on: a request that came in
		// on a loopback address (http.LocalAddrContextKey) with a Host that
		// is not a loopback name is refused with 403. apiserver sets the
		// address only where that rule is its own (no API_KEY, not
		// PUBLIC_URL's host), since behind a reverse proxy on loopback every
		// request would look rebound.
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Log})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, r.Context())))
	})
}

// requestKey carries an HTTP request's context to the tool call it holds.
// The SDK runs a call on a context that keeps the request's values but not
// its end (for clients of protocol versions before 2026-06-30), so without
// this a client that leaves, or a request that times out, would not stop
// the call's work.
type requestKey struct{}

// withRequestEnd ends ctx when the HTTP request it came from ends, with the
// request's cause.
func withRequestEnd(ctx context.Context) (context.Context, context.CancelFunc) {
	rc, ok := ctx.Value(requestKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(rc, func() { cancel(context.Cause(rc)) })
	return ctx, func() { stop(); cancel(nil) }
}
