package bot

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestBackgroundWorkRecovers: the 🧠 reaction, the end of the typing notice
// and the typing renewals run in goroutines of their own, outside the
// room queue's recover; a panic there must be logged, not end the process.
// A bot without a Matrix client makes the typing sends panic (nil pointer).
func TestBackgroundWorkRecovers(t *testing.T) {
	logs := &syncBuffer{}
	a := &answerer{mx: &matrix{}, log: slog.New(slog.NewTextHandler(logs, nil))}
	ctx, cancel := context.WithCancel(context.Background())

	<-a.background(ctx, "🧠 reaction", func() { panic("boom") })
	stop := a.typing(ctx, "!r:x")
	cancel() // stop then skips its own final send, which runs in this goroutine
	stop(ctx)

	out := logs.String()
	for _, work := range []string{`work="🧠 reaction"`, "work=typing"} {
		if !strings.Contains(out, "panic in bot background work") || !strings.Contains(out, work) {
			t.Errorf("want the panic of %s logged, got %q", work, out)
		}
	}
}
