package ui

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Service is what the page needs of core (*core.Service implements it):
// the methods the memory endpoints of the API use, and the page's reads
// (core/memory_browse.go).
type Service interface {
	GetMemory(ctx context.Context, id string) (core.Memory, error)
	PatchMemory(ctx context.Context, id string, p core.MemoryPatch) (core.Memory, error)
	DeleteMemoryFor(ctx context.Context, id, reason string) error
	MemoryHistory(ctx context.Context, id string) ([]core.HistoryEntry, error)
	BrowseMemories(ctx context.Context, b core.Browse) (core.BrowseResult, error)
	Forgotten(ctx context.Context, v *core.Visibility, limit int) ([]core.HistoryEntry, error)
	RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error)
	RoomConversations(ctx context.Context, rooms []string) ([]core.Conversation, error)
	ConversationRoom(ctx context.Context, id string) (string, error)
	ConversationTurns(ctx context.Context, id string) ([]core.ConversationTurn, error)
	ExportMember(ctx context.Context, userID string) (core.MemberExport, error)
}
