package bot

import (
	"log/slog"
	"time"

	"github.com/ada-chat/ada/storage"
)

// forgetting deletes what members take away: a redacted message and what
// was stored because of it (forget_redaction.go), never lost on the way
// (forget_pending.go), and everything older than
// DATA_RETENTION_DAYS (forget_retention.go).
type forgetting struct {
	mx        *matrix
	backend   Backend
	bridge    *storage.Bridge
	window    *window
	rooms     *roomStates
	retention RetentionSweeper // nil: the core's documents are left alone
	// retentionDays is DATA_RETENTION_DAYS; 0 keeps everything.
	retentionDays int
	// purgeOnLeave is ROOM_DATA_ON_LEAVE=purge (forget_leave.go).
	purgeOnLeave bool
	// pending are the redactions being applied (forget_pending.go).
	pending pendingRedactions
	observe Observer
	now     func() time.Time
	log     *slog.Logger
}
