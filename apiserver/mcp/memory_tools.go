package mcp

import (
	"context"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
)

// listLimit is a listing's default page, as GET /v1/memory has it: the
// largest (a search's default is core.DefaultSearchLimit).
const listLimit = core.MaxMemoryLimit

func (t *tools) search(ctx context.Context, req *sdk.CallToolRequest, in searchInput) (memoriesOutput, error) {
	if strings.TrimSpace(in.Query) == "" {
		return memoriesOutput{}, core.Errorf(core.KindInvalid, "query: is required and must not be blank")
	}
	entity, err := t.scope(req, in.Entity)
	if err != nil {
		return memoriesOutput{}, err
	}
	page, err := t.svc.MemoryPage(ctx, core.MemoryQuery{Text: in.Query, Entity: entity, Limit: orDefault(in.Limit, core.DefaultSearchLimit)})
	if err != nil {
		return memoriesOutput{}, err
	}
	return memoriesOf(page), nil
}

func (t *tools) list(ctx context.Context, req *sdk.CallToolRequest, in listInput) (memoriesOutput, error) {
	entity, err := t.scope(req, in.Entity)
	if err != nil {
		return memoriesOutput{}, err
	}
	page, err := t.svc.MemoryPage(ctx, core.MemoryQuery{Entity: entity, Limit: orDefault(in.Limit, listLimit), Cursor: in.Cursor})
	if err != nil {
		return memoriesOutput{}, err
	}
	return memoriesOf(page), nil
}

func (t *tools) add(ctx context.Context, req *sdk.CallToolRequest, in addInput) (core.Memory, error) {
	entity, err := t.scope(req, in.Entity)
	if err != nil {
		return core.Memory{}, err
	}
	return t.svc.CreateMemory(ctx, core.MemoryInput{Text: in.Text, Entity: entity, Importance: in.Importance,
		Tags: in.Tags, Source: core.SourceChat})
}

func (t *tools) update(ctx context.Context, req *sdk.CallToolRequest, in updateInput) (core.Memory, error) {
	p := core.MemoryPatch{Text: in.Text, Importance: in.Importance, Tags: in.Tags}
	// Checked before the scope lookup, so that a call that changes nothing
	// says so whatever the id.
	if err := core.CheckMemoryPatch(p, time.Now()); err != nil {
		return core.Memory{}, err
	}
	if err := t.reachable(ctx, req, in.ID, core.Actor.MayEdit); err != nil {
		return core.Memory{}, err
	}
	return t.svc.PatchMemory(ctx, in.ID, p)
}

func (t *tools) delete(ctx context.Context, req *sdk.CallToolRequest, in deleteInput) (deleteOutput, error) {
	if err := t.reachable(ctx, req, in.ID, core.Actor.MayForget); err != nil {
		return deleteOutput{}, err
	}
	if err := t.svc.DeleteMemory(ctx, in.ID); err != nil {
		return deleteOutput{}, err
	}
	return deleteOutput{ID: in.ID, Deleted: true}, nil
}

// recall ranks the conversation's turns and summaries as the chat recalls
// them (core's own prompt assembly, which stores nothing): with no recent
// window, every turn is a candidate and each hit carries its explain; no
// memories or FAQ entries are searched. A client scoped to an entity
// reaches only that end user's conversations (core.Service.ConversationFor).
func (t *tools) recall(ctx context.Context, req *sdk.CallToolRequest, in recallInput) (recallOutput, error) {
	a, err := t.actor(req)
	if err != nil {
		return recallOutput{}, err
	}
	if strings.TrimSpace(in.ConversationID) == "" {
		return recallOutput{}, core.Errorf(core.KindInvalid, "conversation_id: is required")
	}
	if err := t.svc.ConversationFor(ctx, a, in.ConversationID); err != nil {
		return recallOutput{}, err
	}
	none := 0
	p, err := t.svc.DebugPrompt(ctx, core.ChatRequest{Prompt: in.Query, ConversationID: in.ConversationID,
		TurnsK: &none, FAQK: &none, MemoryK: &none})
	if err != nil {
		return recallOutput{}, err
	}
	out := recallOutput{ConversationID: in.ConversationID, Turns: p.Used.Turns, Summaries: p.Used.Summaries}
	if out.Turns == nil {
		out.Turns = []core.ContextItem{}
	}
	if out.Summaries == nil {
		out.Summaries = []core.ContextItem{}
	}
	out.Count = len(out.Turns) + len(out.Summaries)
	return out, nil
}

func memoriesOf(page core.MemoryPageResult) memoriesOutput {
	items := page.Items
	if items == nil {
		items = []core.Memory{}
	}
	return memoriesOutput{Items: items, Count: len(items), Next: page.Next}
}

func orDefault(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}
