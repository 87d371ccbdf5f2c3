package ui

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Service is what the page needs of core (*core.Service implements it): the
// methods the memory endpoints of the API already use.
type Service interface {
	GetMemory(ctx context.Context, id string) (core.Memory, error)
	PatchMemory(ctx context.Context, id string, p core.MemoryPatch) (core.Memory, error)
	DeleteMemoryFor(ctx context.Context, id, reason string) error
	MemoryHistory(ctx context.Context, id string) ([]core.HistoryEntry, error)
	MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error)
}
