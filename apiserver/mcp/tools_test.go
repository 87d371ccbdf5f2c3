package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
)

// fakeMemories records what the tools asked of core; memories maps ids to
// their entity ("" for a global memory).
type fakeMemories struct {
	Memories
	memories map[string]string
	queries  []core.MemoryQuery
	patched  []string
	deleted  []string
	created  []core.MemoryInput
	fail     error
}

func (f *fakeMemories) MemoryPage(_ context.Context, q core.MemoryQuery) (core.MemoryPageResult, error) {
	f.queries = append(f.queries, q)
	if q.Text == "boom" {
		panic("a bug")
	}
	return core.MemoryPageResult{}, f.fail
}

func (f *fakeMemories) CreateMemory(_ context.Context, in core.MemoryInput) (core.Memory, error) {
	f.created = append(f.created, in)
	return core.Memory{ID: "doc-new", Text: in.Text}, f.fail
}

// MemoryFor applies core's access rule to the fake's memories, as
// core.Service.MemoryFor does.
func (f *fakeMemories) MemoryFor(_ context.Context, a core.Actor, id string, may func(core.Actor, core.Metadata) bool) (core.Memory, error) {
	entity, ok := f.memories[id]
	m := core.Memory{ID: id, Meta: core.MemoryMeta{Scope: core.ScopeGlobal}}
	if entity != "" {
		m.Meta.Entity, m.Meta.Scope = &entity, core.EntityScope(entity)
	}
	if !ok || !a.Operator && !may(a, m.Access()) {
		return core.Memory{}, core.Errorf(core.KindNotFound, "memory %s not found", id)
	}
	return m, nil
}

func (f *fakeMemories) PatchMemory(_ context.Context, id string, _ core.MemoryPatch) (core.Memory, error) {
	f.patched = append(f.patched, id)
	return core.Memory{ID: id}, nil
}

func (f *fakeMemories) DeleteMemory(_ context.Context, id string) error {
	f.deleted = append(f.deleted, id)
	return nil
}

// connect runs a server over fake in memory and returns a connected client.
func connect(t *testing.T, fake *fakeMemories, opts Options) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(fake, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError
}

// Bad input, core's refusals, a foreign error and a panic all come back as
// tool errors with a message a client may see, and nothing is written.
func TestToolErrorsAreSafeAndWriteNothing(t *testing.T) {
	tests := []struct {
		name, tool string
		args       map[string]any
		fail       error
		want       string
	}{
		{"missing field", "add_memory", map[string]any{}, nil, "text"},
		{"wrong type", "add_memory", map[string]any{"text": 5}, nil, "text"},
		{"unknown field", "delete_memory", map[string]any{"id": "doc-1", "force": true}, nil, "force"},
		{"blank query", "search_memory", map[string]any{"query": "  "}, nil, "query: is required"},
		{"patch of nothing", "update_memory", map[string]any{"id": "doc-1"}, nil, "at least one of"},
		{"core refuses", "add_memory", map[string]any{"text": "x"}, core.Errorf(core.KindInvalid, "text: too short"), "text: too short"},
		{"foreign error", "list_memories", map[string]any{}, errors.New("sql: /var/lib/ada/ada.db is locked"), "internal error"},
		{"panic", "search_memory", map[string]any{"query": "boom"}, nil, "internal error"},
		{"recall without id", "recall_conversation", map[string]any{"conversation_id": "", "query": "q"}, nil, "conversation_id: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeMemories{fail: tt.fail, memories: map[string]string{"doc-1": ""}}
			text, isError := call(t, connect(t, fake, Options{}), tt.tool, tt.args)
			if !isError || !strings.Contains(text, tt.want) {
				t.Errorf("got isError=%v %q, want a tool error containing %q", isError, text, tt.want)
			}
			if strings.Contains(text, "/var/lib") || strings.Contains(text, "a bug") {
				t.Errorf("an internal cause reached the client: %q", text)
			}
			if len(fake.patched)+len(fake.deleted) > 0 {
				t.Errorf("a refused call wrote: patched %v, deleted %v", fake.patched, fake.deleted)
			}
		})
	}
}

// A server scoped to one entity gives it to calls that name none, refuses
// calls that name another, and changes only that entity's memories.
func TestEntityScope(t *testing.T) {
	fake := &fakeMemories{memories: map[string]string{"doc-alice": "alice", "doc-bob": "bob", "doc-global": ""}}
	cs := connect(t, fake, Options{Entity: "alice"})

	call(t, cs, "search_memory", map[string]any{"query": "tea"})
	call(t, cs, "list_memories", map[string]any{"entity": "alice"})
	call(t, cs, "add_memory", map[string]any{"text": "Alice likes tea."})
	if fake.queries[0].Entity != "alice" || fake.queries[1].Entity != "alice" || fake.created[0].Entity != "alice" {
		t.Errorf("scope not applied: queries %+v, created %+v", fake.queries, fake.created)
	}
	if text, isError := call(t, cs, "search_memory", map[string]any{"query": "tea", "entity": "bob"}); !isError || !strings.Contains(text, `scoped to entity "alice"`) {
		t.Errorf("another entity's search: %v %q", isError, text)
	}
	for _, id := range []string{"doc-bob", "doc-global", "doc-missing"} {
		if text, isError := call(t, cs, "delete_memory", map[string]any{"id": id}); !isError || !strings.Contains(text, "not found") {
			t.Errorf("delete %s: %v %q", id, isError, text)
		}
		if _, isError := call(t, cs, "update_memory", map[string]any{"id": id, "importance": 2}); !isError {
			t.Errorf("update %s passed", id)
		}
	}
	if _, isError := call(t, cs, "update_memory", map[string]any{"id": "doc-alice", "importance": 2}); isError {
		t.Error("update of alice's own memory refused")
	}
	if _, isError := call(t, cs, "delete_memory", map[string]any{"id": "doc-alice"}); isError {
		t.Error("delete of alice's own memory refused")
	}
	if strings.Join(fake.patched, ",") != "doc-alice" || strings.Join(fake.deleted, ",") != "doc-alice" {
		t.Errorf("writes: patched %v, deleted %v; want only doc-alice", fake.patched, fake.deleted)
	}
}

// headerTransport adds a client configuration's headers to every request.
type headerTransport struct{ header http.Header }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h.header {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Over HTTP, the client's X-Ada-Entity header is its scope, request by
// request; a client without it names the entity in each call.
func TestEntityHeaderScopesHTTPClients(t *testing.T) {
	fake := &fakeMemories{memories: map[string]string{}}
	srv := httptest.NewServer(Handler(fake, Options{}))
	defer srv.Close()
	dial := func(header http.Header) *sdk.ClientSession {
		tr := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: headerTransport{header}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice := dial(http.Header{EntityHeader: {"alice"}})
	anyone := dial(nil)
	call(t, alice, "search_memory", map[string]any{"query": "tea"})
	call(t, anyone, "search_memory", map[string]any{"query": "tea", "entity": "bob"})
	if _, isError := call(t, alice, "list_memories", map[string]any{"entity": "bob"}); !isError {
		t.Error("alice's client listed bob's memories")
	}
	if len(fake.queries) != 2 || fake.queries[0].Entity != "alice" || fake.queries[1].Entity != "bob" {
		t.Errorf("queries: %+v", fake.queries)
	}
}

// A client whose X-Ada-Entity is shaped like a Matrix id (a member, a
// room) is refused every call, saying why, and reaches no memory.
func TestEntityHeaderIsNeverAMatrixID(t *testing.T) {
	fake := &fakeMemories{memories: map[string]string{"doc-1": "@alice:server"}}
	srv := httptest.NewServer(Handler(fake, Options{}))
	defer srv.Close()
	for _, id := range []string{"@alice:server", "!room:server"} {
		tr := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: headerTransport{http.Header{EntityHeader: {id}}}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		for tool, args := range map[string]map[string]any{
			"search_memory": {"query": "tea"}, "list_memories": {}, "add_memory": {"text": "tea"},
			"update_memory": {"id": "doc-1", "importance": 2}, "delete_memory": {"id": "doc-1"},
			"recall_conversation": {"conversation_id": "conv-00000000-0000-4000-8000-000000000000", "query": "tea"},
		} {
			if text, isError := call(t, cs, tool, args); !isError || !strings.HasPrefix(text, "X-Ada-Entity: ") || !strings.Contains(text, "Matrix") {
				t.Errorf("%s as %s: %q (error %v), want the header refused", tool, id, text, isError)
			}
		}
		cs.Close()
	}
	if len(fake.queries)+len(fake.created)+len(fake.patched)+len(fake.deleted) != 0 {
		t.Errorf("a refused client reached core: %+v", fake)
	}
}
