package metrics

import (
	"context"
	"time"

	"github.com/ada-chat/ada/core"
)

// ChatFunc is the signature of core.Service.Chat.
type ChatFunc func(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error)

// Chat returns chat timed and counted under source ("api" or "bot"): its
// time to the first token of the answer and its duration and result.
func (m *Metrics) Chat(source string, chat ChatFunc) ChatFunc {
	m.chats.WithLabelValues(source, "ok")
	return func(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
		start := time.Now()
		first := true
		res, err := chat(ctx, req, func(ev core.Event) error {
			if first && ev.Type == core.EventToken {
				first = false
				m.chatTTFT.WithLabelValues(source).Observe(time.Since(start).Seconds())
			}
			return emit(ev)
		})
		result := kindLabel(err)
		m.chats.WithLabelValues(source, result).Inc()
		m.chatDuration.WithLabelValues(source, result).Observe(time.Since(start).Seconds())
		return res, err
	}
}
