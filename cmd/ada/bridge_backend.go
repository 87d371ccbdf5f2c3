package main

import (
	"context"

	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/core"
)

// apiBackend adapts the HTTP client of Ada's API to the bridge's Backend.
// ocrMax is this process's OCR_MAX_BYTES: the API does not publish its
// limit, and both processes normally share one configuration; if the API's
// limit is lower it answers 413, which the bridge reports the same way.
type apiBackend struct {
	c      *client.Client
	ocrMax int64
}

func (b apiBackend) Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	return b.c.Chat(ctx, req, emit)
}

// OCR posts the image to /v1/ocr/extract.
func (b apiBackend) OCR(ctx context.Context, image []byte) (core.OCRResult, error) {
	return b.c.ExtractText(ctx, "matrix-image", image)
}

func (b apiBackend) OCRMaxBytes() int64 { return b.ocrMax }

// Specialists asks GET /v1/specialists.
func (b apiBackend) Specialists(ctx context.Context) ([]core.SpecialistInfo, error) {
	return b.c.Specialists(ctx)
}

func (b apiBackend) CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error) {
	return b.c.CreateMemory(ctx, in)
}

func (b apiBackend) MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error) {
	return b.c.MemoryPage(ctx, q)
}

func (b apiBackend) GetMemory(ctx context.Context, id string) (core.Memory, error) {
	return b.c.GetMemory(ctx, id)
}

func (b apiBackend) DeleteMemory(ctx context.Context, id, reason string) error {
	return b.c.DeleteMemory(ctx, id, reason)
}

// DeleteTurns deletes the turns one request each: the API deletes one turn
// per call. Turns already gone are skipped; none left is KindNotFound, as
// in process.
func (b apiBackend) DeleteTurns(ctx context.Context, conversationID string, turnIDs []string, reason string) error {
	deleted := 0
	for _, id := range turnIDs {
		err := b.c.DeleteTurn(ctx, conversationID, id, reason)
		switch {
		case err == nil:
			deleted++
		case core.KindOf(err) != core.KindNotFound:
			return err
		}
	}
	if deleted == 0 {
		return core.Errorf(core.KindNotFound, "no such turn in conversation %s", conversationID)
	}
	return nil
}

func (b apiBackend) Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error) {
	return b.c.Forget(ctx, req)
}

// Health maps /v1/healthz onto the status the bridge shows.
func (b apiBackend) Health(ctx context.Context) bot.Status {
	st := bot.Status{Via: b.c.BaseURL()}
	h, err := b.c.Health(ctx)
	if err != nil {
		st.APIError = core.SafeMessage(err)
		return st
	}
	st.APIOK = true
	st.StoreOK, st.StoreError = h.Store.OK, strOrEmpty(h.Store.Error)
	st.LLMOK, st.LLMBackend, st.LLMModel, st.LLMError = h.LLM.OK, h.LLM.Backend, h.LLM.Model, strOrEmpty(h.LLM.Error)
	return st
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
