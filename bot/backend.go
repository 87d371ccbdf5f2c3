package bot

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Backend is everything the bridge needs from Ada. cmd gives it the core
// in-process (ADA_API_URL empty) or the HTTP client of Ada's API; the bot
// cannot tell them apart.
type Backend interface {
	// Chat answers one prompt, streaming events to emit, exactly like
	// core.Service.Chat: on success the last event is done and the result is
	// complete; on failure the error is a core.Error with a client-safe message.
	Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error)
	// Health probes the API and its dependencies for !ada status. It never
	// fails: problems are reported in the Status.
	Health(ctx context.Context) Status
	// OCR reads the text of an image. Errors are core.Errors with client-safe
	// messages: KindTooLarge, KindInvalid (not a supported image),
	// KindUnavailable (no OCR engine), KindUpstream, KindCanceled.
	OCR(ctx context.Context, image []byte) (core.OCRResult, error)
	// OCRMaxBytes is the largest image OCR accepts (OCR_MAX_BYTES), so that
	// the bridge can refuse bigger ones before downloading them; 0 means
	// OCR is not available at all.
	OCRMaxBytes() int64
	// Specialists lists the specialists, the MCP servers' tools among them
	// (for !ada help).
	Specialists(ctx context.Context) ([]core.SpecialistInfo, error)

	// The room's memories (!ada remember, memories, forget) and redactions;
	// errors are core.Errors with client-safe messages.

	// CreateMemory stores a memory; a refreshed duplicate comes back with
	// Deduplicated set.
	CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error)
	// MemoryPage lists memories newest first, a page at a time.
	MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error)
	// GetMemory returns one live memory; KindNotFound when there is none.
	GetMemory(ctx context.Context, id string) (core.Memory, error)
	// DeleteMemory deletes one memory; KindNotFound when it is gone.
	DeleteMemory(ctx context.Context, id, reason string) error
	// DeleteTurns deletes stored turns of one conversation and what was
	// learned only from them, at once, so that a summary covering several
	// is rewritten once; reason goes into the history of the memories
	// deleted with them. KindNotFound when none of them is left.
	DeleteTurns(ctx context.Context, conversationID string, turnIDs []string, reason string) error
	// Forget deletes what Ada holds from and about a person (`!ada forget
	// me`): their turns and the answers to them, the memories they told or
	// are the subject of; summaries are rewritten without them.
	Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error)
}

// TextExtractor is the OCR engine of the in-process backend (an
// *ocr.Extractor from core/specialists/ocr).
type TextExtractor interface {
	Extract(ctx context.Context, data []byte) (core.OCRResult, error)
	MaxBytes() int64
}

// Status is the health of the backend as !ada status shows it.
type Status struct {
	// Via names how the bridge reaches Ada: "in-process" or the API's URL.
	Via string
	// APIOK is false when the API did not answer at all; APIError says why.
	APIOK    bool
	APIError string
	// StoreOK is the vector store's health; StoreError says what failed.
	StoreOK    bool
	StoreError string
	// LLMOK is the LLM backend's health.
	LLMOK      bool
	LLMBackend string
	LLMModel   string
	LLMError   string
}

// coreService is the part of *core.Service the in-process backend uses.
type coreService interface {
	Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error)
	Health(ctx context.Context) core.Health
	LLMInfo() (backend, model string)
	CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error)
	MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error)
	GetMemory(ctx context.Context, id string) (core.Memory, error)
	DeleteMemoryFor(ctx context.Context, id, reason string) error
	DeleteTurns(ctx context.Context, convID string, ids []string, reason string) (int, error)
	Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error)
	Specialists() []core.SpecialistInfo
}

// CoreBackend runs chats on the core in the same process (ada up, or ada bot
// without ADA_API_URL).
type CoreBackend struct {
	svc coreService
	ocr TextExtractor
}

// NewCoreBackend wraps the core service (a *core.Service) and the OCR
// engine; ocr may be nil, and then images are refused as unreadable.
func NewCoreBackend(svc coreService, ocr TextExtractor) *CoreBackend {
	return &CoreBackend{svc: svc, ocr: ocr}
}

// OCR runs the engine in this process.
func (b *CoreBackend) OCR(ctx context.Context, image []byte) (core.OCRResult, error) {
	if b.ocr == nil {
		return core.OCRResult{}, errNoOCR
	}
	return b.ocr.Extract(ctx, image)
}

// OCRMaxBytes is the engine's limit, or 0 without an engine.
func (b *CoreBackend) OCRMaxBytes() int64 {
	if b.ocr == nil {
		return 0
	}
	return b.ocr.MaxBytes()
}

// Specialists lists the core's specialists.
func (b *CoreBackend) Specialists(context.Context) ([]core.SpecialistInfo, error) {
	if b.svc == nil {
		return nil, nil
	}
	return b.svc.Specialists(), nil
}

var errNoOCR = core.Errorf(core.KindUnavailable, "OCR is not set up for the bridge")

// Chat calls the core directly.
func (b *CoreBackend) Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	return b.svc.Chat(ctx, req, emit)
}

// Health probes the core's store and LLM.
func (b *CoreBackend) Health(ctx context.Context) Status {
	h := b.svc.Health(ctx)
	st := Status{Via: "in-process", APIOK: true, StoreOK: h.StoreErr == nil, LLMOK: h.LLMErr == nil}
	st.LLMBackend, st.LLMModel = b.svc.LLMInfo()
	if h.StoreErr != nil {
		st.StoreError = core.SafeMessage(h.StoreErr)
	}
	if h.LLMErr != nil {
		st.LLMError = core.SafeMessage(h.LLMErr)
	}
	return st
}

// CreateMemory stores a memory in the core.
func (b *CoreBackend) CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error) {
	return b.svc.CreateMemory(ctx, in)
}

// MemoryPage lists or searches memories in the core.
func (b *CoreBackend) MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error) {
	return b.svc.MemoryPage(ctx, q)
}

// GetMemory reads a memory in the core.
func (b *CoreBackend) GetMemory(ctx context.Context, id string) (core.Memory, error) {
	return b.svc.GetMemory(ctx, id)
}

// DeleteMemory deletes a memory in the core.
func (b *CoreBackend) DeleteMemory(ctx context.Context, id, reason string) error {
	return b.svc.DeleteMemoryFor(ctx, id, reason)
}

// DeleteTurns deletes turns, and what was derived only from them, in the
// core, in one call.
func (b *CoreBackend) DeleteTurns(ctx context.Context, conversationID string, turnIDs []string, reason string) error {
	_, err := b.svc.DeleteTurns(ctx, conversationID, turnIDs, reason)
	return err
}

// Forget forgets a person in the core.
func (b *CoreBackend) Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error) {
	return b.svc.Forget(ctx, req)
}
