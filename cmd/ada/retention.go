package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/ada-chat/ada/bot"
)

// sweepRetention enforces DATA_RETENTION_DAYS in a process that serves the
// API without the bridge (`ada serve` behind a bridge running elsewhere
// with ADA_API_URL): on the documents chat rooms caused to be stored, which
// that bridge cannot reach, and on this database's own bridge tables (an
// earlier `ada up` may have filled them). With the bridge in-process, the
// bridge's own sweep covers both; a bridge elsewhere sweeps its database.
func sweepRetention(ctx context.Context, a *app, log *slog.Logger) {
	bot.Retention{Days: a.cfg.DataRetentionDays, Bridge: a.db.Bridge(), Documents: a.core, Now: time.Now, Log: log}.Loop(ctx)
}
