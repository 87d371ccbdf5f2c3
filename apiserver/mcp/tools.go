package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
)

// tools holds what every tool handler needs (memory_tools.go has the
// handlers, each mapping its input onto one or two core calls).
type tools struct {
	svc    Memories
	entity string // fixed scope of this server, or ""
	log    *slog.Logger
}

// Inputs. Their JSON schemas are derived from these types (the SDK rejects
// a call that does not fit before a handler runs); core checks the values.

type searchInput struct {
	Query  string `json:"query" jsonschema:"what to look for, in words: the search is by meaning and by keyword"`
	Entity string `json:"entity,omitempty" jsonschema:"the person (or thing) whose memories to include beside the global ones"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"how many memories at most, 1..20 (default 10)"`
}

type addInput struct {
	Text       string   `json:"text" jsonschema:"the fact to remember, one self-contained sentence"`
	Entity     string   `json:"entity,omitempty" jsonschema:"the person (or thing) the memory is about; omitted: a global memory"`
	Importance *int     `json:"importance,omitempty" jsonschema:"1..5 (default 3)"`
	Tags       []string `json:"tags,omitempty" jsonschema:"labels to filter by later"`
}

type updateInput struct {
	ID         string    `json:"id" jsonschema:"the memory's id (doc-...)"`
	Text       *string   `json:"text,omitempty" jsonschema:"the new text"`
	Importance *int      `json:"importance,omitempty" jsonschema:"the new importance, 1..5"`
	Tags       *[]string `json:"tags,omitempty" jsonschema:"the new tags, replacing the old ones"`
}

type deleteInput struct {
	ID string `json:"id" jsonschema:"the memory's id (doc-...)"`
}

type listInput struct {
	Entity string `json:"entity,omitempty" jsonschema:"the person (or thing) whose memories to include beside the global ones"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"page size, 1..20 (default 20)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next of the previous page, to continue the listing"`
}

type recallInput struct {
	ConversationID string `json:"conversation_id" jsonschema:"the conversation (conv-<uuid>)"`
	Query          string `json:"query" jsonschema:"what to recall from it, in words"`
}

// Outputs.

type memoriesOutput struct {
	Items []core.Memory `json:"items"`
	Count int           `json:"count"`
	// Next continues a listing; empty at its end and for searches.
	Next string `json:"next,omitempty"`
}

type deleteOutput struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

type recallOutput struct {
	ConversationID string             `json:"conversation_id"`
	Turns          []core.ContextItem `json:"turns"`
	Summaries      []core.ContextItem `json:"summaries"`
	Count          int                `json:"count"`
}

func (t *tools) register(s *sdk.Server) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "search_memory", Annotations: readOnly,
		Description: "Search Ada's long-term memory by meaning and keywords. Returns the best memories, each with its id, text, meta, score and explain (why it ranks there)."},
		handle(t, t.search))
	sdk.AddTool(s, &sdk.Tool{Name: "add_memory",
		Description: "Store a fact in Ada's long-term memory. If the same fact is already stored in that scope, it is refreshed instead (deduplicated: true) and its id returned."},
		handle(t, t.add))
	sdk.AddTool(s, &sdk.Tool{Name: "update_memory",
		Description: "Change a memory's text, importance or tags (at least one). The change is kept in the memory's history."},
		handle(t, t.update))
	sdk.AddTool(s, &sdk.Tool{Name: "delete_memory", Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true)},
		Description: "Delete a memory by id. Ada keeps a tombstone in its history, not the text."},
		handle(t, t.delete))
	sdk.AddTool(s, &sdk.Tool{Name: "list_memories", Annotations: readOnly,
		Description: "List memories newest first, a page at a time: pass the next of one page as the cursor of the following call."},
		handle(t, t.list))
	sdk.AddTool(s, &sdk.Tool{Name: "recall_conversation", Annotations: readOnly,
		Description: "Recall the turns and summaries of one of Ada's conversations that bear on a query, ranked as Ada's chat recalls them, each with its explain. A client scoped to an entity recalls only that entity's conversations."},
		handle(t, t.recall))
}

// handle adapts a tool function to the SDK: it turns an error into a tool
// error with core's client-safe message, logs the internal cause, and
// recovers a panic, so that no input can take the process down.
func handle[In, Out any](t *tools, f func(ctx context.Context, req *sdk.CallToolRequest, in In) (Out, error)) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (_ *sdk.CallToolResult, out any, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = core.Wrap(core.KindInternal, fmt.Errorf("panic: %v\n%s", p, debug.Stack()), "internal error")
			}
			if err != nil {
				err = t.safe(ctx, req, err)
			}
		}()
		ctx, done := withRequestEnd(ctx)
		defer done()
		v, err := f(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		return nil, v, nil
	}
}

// safe logs a failed call and returns the error a client may see.
func (t *tools) safe(ctx context.Context, req *sdk.CallToolRequest, err error) error {
	level := slog.LevelWarn
	if k := core.KindOf(err); k == core.KindInternal || k == core.KindUpstream || k == core.KindUnavailable {
		level = slog.LevelError
	}
	if ctx.Err() != nil {
		level = slog.LevelWarn // the client left or the request timed out
	}
	t.log.Log(ctx, level, "mcp tool call failed", "tool", req.Params.Name, "error", err.Error())
	return errors.New(core.SafeMessage(err))
}

// scope is the entity a call acts for: the server's fixed one or, over
// HTTP, the client's EntityHeader; asked is the one the call names. The
// header names an end user, who is never a Matrix room or member
// (core.CheckFrontEndUser): such a client is refused every call.
func (t *tools) scope(req *sdk.CallToolRequest, asked string) (string, error) {
	asked = strings.TrimSpace(asked)
	fixed := t.entity
	if fixed == "" && req.Extra != nil && req.Extra.Header != nil {
		fixed = strings.TrimSpace(req.Extra.Header.Get(EntityHeader))
		if err := core.CheckFrontEndUser(EntityHeader, fixed); err != nil {
			return "", err
		}
	}
	switch {
	case fixed == "":
		return asked, nil
	case asked == "" || asked == fixed:
		return fixed, nil
	}
	return "", core.Errorf(core.KindInvalid, "entity: this client is scoped to entity %q and cannot act for %q", fixed, asked)
}

// actor is who a call acts as: the end user of its entity scope or, with
// none, the operator, who holds the API key (or runs ada mcp).
func (t *tools) actor(req *sdk.CallToolRequest) (core.Actor, error) {
	entity, err := t.scope(req, "")
	if err != nil || entity == "" {
		return core.Actor{Operator: err == nil}, err
	}
	return core.Actor{EndUser: entity}, nil
}

// reachable checks that the caller may (core.Actor.MayEdit, MayForget)
// change memory id; a memory it may not reach answers as an unknown id.
// The operator's call goes straight to the change, which says itself what
// became of a missing id.
func (t *tools) reachable(ctx context.Context, req *sdk.CallToolRequest, id string, may func(core.Actor, core.Metadata) bool) error {
	a, err := t.actor(req)
	if err != nil || a.Operator {
		return err
	}
	_, err = t.svc.MemoryFor(ctx, a, id, may)
	return err
}

func ptr[T any](v T) *T { return &v }
