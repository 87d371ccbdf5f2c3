package apiserver

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Service is what the HTTP API needs of Ada's core (*core.Service
// implements it), so that handlers can be tested without the whole stack.
type Service interface {
	Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error)
	DebugPrompt(ctx context.Context, req core.ChatRequest) (core.Prompt, error)

	CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error)
	GetMemory(ctx context.Context, id string) (core.Memory, error)
	PatchMemory(ctx context.Context, id string, p core.MemoryPatch) (core.Memory, error)
	DeleteMemoryFor(ctx context.Context, id, reason string) error
	MemoryHistory(ctx context.Context, id string) ([]core.HistoryEntry, error)
	MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error)

	RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error)
	ConversationTurns(ctx context.Context, id string) ([]core.ConversationTurn, error)
	DeleteConversation(ctx context.Context, id string) (int, error)
	DeleteTurns(ctx context.Context, convID string, ids []string, reason string) (int, error)
	Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error)

	Health(ctx context.Context) core.Health
	Stats(ctx context.Context) (core.StoreStats, error)
	Options() core.Options
	EmbedderName() string
	LLMInfo() (backend, model string)
	Specialists() []core.SpecialistInfo
	SpecialistsEnabled() bool
}
