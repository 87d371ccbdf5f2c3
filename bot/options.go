package bot

import (
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/storage"
)

// Options are the bridge's settings, as OptionsFrom maps them from the
// parsed configuration. The bridge sets no defaults of its own: config holds
// them, once.
type Options struct {
	Homeserver  string
	UserID      string
	AccessToken string `json:"-"`
	Password    string `json:"-"`
	RecoveryKey string `json:"-"`
	DisplayName string

	AllowedRooms   []string // room ids or #aliases; empty = any
	NeverJoinRooms []string
	AllowedUsers   []string // patterns with * wildcards; empty = anyone

	RespondToMentions    bool
	RespondToDMs         bool
	RespondToDisplayName bool
	RespondToKeywords    bool
	Keywords             []string

	MaxContextMessages int
	StoreInRAG         bool
	AllowPrivacyOptOut bool
	RetentionDays      int // 0 = keep forever
	// PurgeOnLeave is ROOM_DATA_ON_LEAVE=purge: what a room stored goes
	// when the bot leaves it (forget_leave.go).
	PurgeOnLeave bool
	SendIntro    bool
	Workers      int

	// Stream shows answers as they are written, by edits (STREAM_EDITS,
	// STREAM_EDIT_SECONDS, STREAM_MAX_EDITS).
	Stream StreamOptions

	// ChatTimeout bounds one answer (REQUEST_TIMEOUT_SECONDS).
	ChatTimeout time.Duration
	// ShutdownGrace bounds how long a stopping bridge goes on answering
	// what it accepted (SHUTDOWN_GRACE_SECONDS).
	ShutdownGrace time.Duration
	// Version is shown by !ada status.
	Version string
	// DataDir is DATA_DIR: a new recovery key is written under it, in
	// crypto/, readable only by the service user.
	DataDir string

	// DefaultModel is LLM_MODEL and RoomModels ROOM_MODELS: the models a
	// room may choose (settings.go).
	DefaultModel string
	RoomModels   []string
	// RoomTools is MCP_ROOM_TOOLS: the MCP tools (server.tool), servers or
	// "all" that a room's `tools` setting may choose among; empty = none.
	RoomTools []string
	// Quotas are the answer and token quotas (quota.go).
	Quotas Quotas
	// Reminders are the reminders' time zone and limits (reminders.go).
	Reminders ReminderOptions

	// PublicURL is PUBLIC_URL, where the links of `!ada web` point; empty =
	// no links. WebPage says the memory page (/ui/) is served by this
	// process (`ada up`); a bridge run alone (`ada bot`) says so instead of
	// sending links. cmd sets it: it is not a setting.
	PublicURL string
	WebPage   bool
}

// OptionsFrom maps the parsed settings onto the bridge's options; version
// is shown by !ada status.
func OptionsFrom(c *config.Config, version string) Options {
	return Options{
		Homeserver: c.MatrixHomeserver, UserID: c.MatrixUserID,
		AccessToken: c.MatrixAccessToken, Password: c.MatrixPassword, RecoveryKey: c.MatrixRecoveryKey,
		DisplayName:  c.BotDisplayName,
		AllowedRooms: c.AllowedRooms, NeverJoinRooms: c.NeverJoinRooms, AllowedUsers: c.AllowedUsers,
		RespondToMentions: c.RespondToMentions, RespondToDMs: c.RespondToDMs,
		RespondToDisplayName: c.RespondToDisplayName, RespondToKeywords: c.RespondToKeywords,
		Keywords:           c.ActivationKeywords,
		MaxContextMessages: c.MaxContextMessages, StoreInRAG: c.StoreInRAG,
		AllowPrivacyOptOut: c.AllowPrivacyOptOut, RetentionDays: c.DataRetentionDays,
		PurgeOnLeave: c.RoomDataOnLeave == "purge",
		SendIntro:    c.SendIntroOnJoin, Workers: c.BotWorkers,
		ChatTimeout: c.RequestTimeout, ShutdownGrace: c.ShutdownGrace, Version: version, DataDir: c.DataDir,
		DefaultModel: c.LLMModel, RoomModels: c.RoomModels, RoomTools: c.MCPRoomTools, PublicURL: c.PublicURL,
		Quotas: Quotas{MemberAnswersPerHour: c.MemberAnswersPerHour, RoomAnswersPerHour: c.RoomAnswersPerHour,
			MemberTokensPerDay: c.MemberTokensPerDay, RoomTokensPerDay: c.RoomTokensPerDay,
			ExemptModerators: c.QuotaExemptModerators},
		Reminders: ReminderOptions{TimeZone: c.TimeZone, MemberPending: c.MemberPendingReminders,
			RoomPending: c.RoomPendingReminders},
		Stream: StreamOptions{On: c.StreamEdits, MaxEdits: c.StreamMaxEdits,
			Interval: time.Duration(c.StreamEditSeconds * float64(time.Second))},
	}
}

// Deps are the bridge's collaborators; cmd builds them.
type Deps struct {
	Backend Backend
	// Transcriber turns voice messages into text (TRANSCRIBE_URL); nil =
	// voice not enabled.
	Transcriber Transcriber
	// DB is the writer pool of Ada's SQLite file (storage.DB.Writer), for
	// mautrix's crypto store and room-state store, which own their tables
	// there and version them themselves.
	DB *sql.DB
	// State is the bridge's own state (storage.DB.Bridge()).
	State *storage.Bridge
	// Retention deletes documents that rooms caused to be stored (turns,
	// summaries, memories) older than a cutoff: core.Service.SweepRetention.
	// Nil leaves them to whoever runs the core.
	Retention RetentionSweeper
	Logger    *slog.Logger
	// Now is the clock; nil = time.Now. Retention tests move it.
	Now func() time.Time
	// HTTPClient talks to the homeserver; nil = mautrix's default.
	HTTPClient *http.Client
	// Observer counts what the bridge does (metrics); nil = nothing.
	Observer Observer
}

func (o *Options) validate() error {
	var errs []error
	if o.Homeserver == "" {
		errs = append(errs, errors.New("MATRIX_HOMESERVER is required"))
	}
	if o.UserID == "" {
		errs = append(errs, errors.New("MATRIX_USER_ID is required"))
	}
	if o.AccessToken == "" && o.Password == "" {
		errs = append(errs, errors.New("MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD is required"))
	}
	// Options made without config (OptionsFrom) have no defaults: zero
	// workers would never answer, a zero timeout would fail every answer.
	if o.Workers < 1 {
		errs = append(errs, errors.New("BOT_WORKERS must be at least 1"))
	}
	if o.Stream.On && (o.Stream.Interval <= 0 || o.Stream.MaxEdits < 2) {
		errs = append(errs, errors.New("STREAM_EDIT_SECONDS must be positive and STREAM_MAX_EDITS at least 2"))
	}
	if o.ChatTimeout <= 0 {
		errs = append(errs, errors.New("REQUEST_TIMEOUT_SECONDS must be positive"))
	}
	if o.ShutdownGrace <= 0 {
		errs = append(errs, errors.New("SHUTDOWN_GRACE_SECONDS must be positive"))
	}
	if _, err := time.LoadLocation(o.Reminders.TimeZone); err != nil {
		errs = append(errs, fmt.Errorf("TIMEZONE: %w", err))
	}
	return errors.Join(errs...)
}
