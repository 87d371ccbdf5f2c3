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
	mx      *matrix
	backend Backend
	bridge  *storage.Bridge
	window  *window
	rooms   *roomStates
	// retention enforces DATA_RETENTION_DAYS on the bridge's database.
	retention Retention
	// purgeOnLeave is ROOM_DATA_ON_LEAVE=purge (forget_leave.go).
	purgeOnLeave bool
	// pending are the redactions being applied (forget_pending.go).
	pending pendingRedactions
	observe Observer
	now     func() time.Time
	log     *slog.Logger
}
