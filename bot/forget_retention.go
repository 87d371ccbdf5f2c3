package bot

import (
	"context"
	"time"
)

// RetentionSweeper deletes documents that chat rooms caused to be stored
// (turns, summaries, memories) older than cutoff; core.Service implements it.
type RetentionSweeper interface {
	SweepRetention(ctx context.Context, cutoff time.Time) (int, error)
}

// retentionEvery is the period of the retention sweep: retention counts in
// days, so an hour late is soon enough.
const retentionEvery = time.Hour

// retentionLoop enforces DATA_RETENTION_DAYS: once at start, then every
// retentionEvery, until ctx ends. 0 days keeps everything.
func (f *forgetting) retentionLoop(ctx context.Context) {
	if f.retentionDays <= 0 {
		return
	}
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		f.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes the bridge's room messages, the pending reminders asked
// for and the room documents older than the retention limit, and logs
// what it removed.
func (f *forgetting) sweep(ctx context.Context) (messages, documents int) {
	cutoff := f.now().AddDate(0, 0, -f.retentionDays)
	log := f.log.With("cutoff", cutoff.UTC().Format(time.RFC3339), "retention_days", f.retentionDays)
	messages, err := f.bridge.DeleteMessagesBefore(ctx, cutoff)
	if err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old room messages", "error", err)
	}
	if err := f.bridge.DeleteLinksBefore(ctx, cutoff); err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old redaction links", "error", err)
	}
	reminders, err := f.bridge.DeleteRemindersBefore(ctx, cutoff)
	if err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old reminders", "error", err)
	}
	if f.retention != nil {
		documents, err = f.retention.SweepRetention(ctx, cutoff)
		if err != nil && ctx.Err() == nil {
			log.Error("retention: could not delete old room documents", "error", err)
		}
	}
	if messages+reminders+documents > 0 {
		log.Info("retention: deleted old data", "room_messages", messages, "reminders", reminders, "documents", documents)
	}
	return messages, documents
}
