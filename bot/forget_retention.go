package bot

import (
	"context"
	"log/slog"
	"time"

	"github.com/ada-chat/ada/storage"
)

// RetentionSweeper deletes documents that chat rooms caused to be stored
// (turns, summaries, memories) older than cutoff; core.Service implements it.
type RetentionSweeper interface {
	SweepRetention(ctx context.Context, cutoff time.Time) (int, error)
}

// retentionEvery is the period of the retention sweep: retention counts in
// days, so an hour late is soon enough.
const retentionEvery = time.Hour

// Retention enforces DATA_RETENTION_DAYS on a database's bridge tables
// (room messages, links, last answers, reminders) and on the documents
// rooms caused to be stored. The bridge runs it on its own database; a
// process serving the API without the bridge (`ada serve`, the bridge
// elsewhere over ADA_API_URL) runs it on its database too, whose bridge
// tables an earlier `ada up` may have filled.
type Retention struct {
	// Days is DATA_RETENTION_DAYS; 0 keeps everything.
	Days   int
	Bridge *storage.Bridge
	// Documents sweeps the core's documents; nil leaves them alone.
	Documents RetentionSweeper
	Now       func() time.Time
	Log       *slog.Logger
}

// Loop sweeps once at start, then every retentionEvery, until ctx ends.
// 0 days keeps everything: it returns at once.
func (r Retention) Loop(ctx context.Context) {
	if r.Days <= 0 {
		return
	}
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		r.Sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep deletes the bridge's room messages, links, last answers and the
// pending reminders asked for, and the room documents, older than the
// retention limit, and logs what it removed.
func (r Retention) Sweep(ctx context.Context) (messages, documents int) {
	cutoff := r.Now().AddDate(0, 0, -r.Days)
	log := r.Log.With("cutoff", cutoff.UTC().Format(time.RFC3339), "retention_days", r.Days)
	messages, err := r.Bridge.DeleteMessagesBefore(ctx, cutoff)
	if err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old room messages", "error", err)
	}
	if err := r.Bridge.DeleteLinksBefore(ctx, cutoff); err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old redaction links", "error", err)
	}
	reminders, err := r.Bridge.DeleteRemindersBefore(ctx, cutoff)
	if err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old reminders", "error", err)
	}
	if r.Documents != nil {
		documents, err = r.Documents.SweepRetention(ctx, cutoff)
		if err != nil && ctx.Err() == nil {
			log.Error("retention: could not delete old room documents", "error", err)
		}
	}
	if messages+reminders+documents > 0 {
		log.Info("retention: deleted old data", "room_messages", messages, "reminders", reminders, "documents", documents)
	}
	return messages, documents
}
