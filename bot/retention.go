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
func (b *Bot) retentionLoop(ctx context.Context) {
	if b.opts.RetentionDays <= 0 {
		return
	}
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		b.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes the bridge's room messages and the room documents older
// than the retention limit, and logs what it removed.
func (b *Bot) sweep(ctx context.Context) (messages, documents int) {
	cutoff := b.now().AddDate(0, 0, -b.opts.RetentionDays)
	log := b.log.With("cutoff", cutoff.UTC().Format(time.RFC3339), "retention_days", b.opts.RetentionDays)
	messages, err := b.bridge.DeleteMessagesBefore(ctx, cutoff)
	if err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old room messages", "error", err)
	}
	if err := b.bridge.DeleteLinksBefore(ctx, cutoff); err != nil && ctx.Err() == nil {
		log.Error("retention: could not delete old redaction links", "error", err)
	}
	if b.deps.Retention != nil {
		documents, err = b.deps.Retention.SweepRetention(ctx, cutoff)
		if err != nil && ctx.Err() == nil {
			log.Error("retention: could not delete old room documents", "error", err)
		}
	}
	if messages+documents > 0 {
		log.Info("retention: deleted old data", "room_messages", messages, "documents", documents)
	}
	return messages, documents
}
