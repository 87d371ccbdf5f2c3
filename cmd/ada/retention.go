package main

import (
	"context"
	"log/slog"
	"time"
)

// retentionEvery is how often the API process sweeps old room documents.
const retentionEvery = time.Hour

// sweepRoomDocuments enforces DATA_RETENTION_DAYS on the documents chat
// rooms caused to be stored, in a process that serves the API without the
// bridge (`ada serve` behind a bridge running elsewhere with ADA_API_URL):
// that bridge cannot reach this database. With the bridge in-process, the
// bridge's own sweep covers it.
func sweepRoomDocuments(ctx context.Context, a *app, log *slog.Logger) {
	days := a.cfg.DataRetentionDays
	if days <= 0 {
		return
	}
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		cutoff := time.Now().AddDate(0, 0, -days)
		if n, err := a.core.SweepRetention(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Error("retention: could not delete old room documents", "error", err)
		} else if n > 0 {
			log.Info("retention: deleted old room documents", "documents", n, "retention_days", days)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
