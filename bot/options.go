package bot

import (
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Options are the bridge's settings. cmd/ada maps them from the parsed
// configuration; DefaultOptions holds the documented defaults, and a test in
// cmd/ada keeps the two in step.
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
	SendIntro          bool
	Workers            int

	// ChatTimeout bounds one answer (REQUEST_TIMEOUT_SECONDS).
	ChatTimeout time.Duration
	// RetentionEvery is the period of the retention sweep (default hourly).
	RetentionEvery time.Duration
	// Version is shown by !ada status.
	Version string
	// DataDir is DATA_DIR: a new recovery key is written under it, in
	// crypto/, readable only by the service user.
	DataDir string
}

// DefaultOptions are the bridge's settings when none is given (the defaults
// of .env.example), without an account.
func DefaultOptions() Options {
	return Options{
		DisplayName:       "Ada",
		RespondToMentions: true, RespondToDMs: true, RespondToDisplayName: true, RespondToKeywords: true,
		Keywords:           []string{"ada", "hey ada"},
		MaxContextMessages: 10, StoreInRAG: true, AllowPrivacyOptOut: true, RetentionDays: 90,
		SendIntro: true, Workers: 4,
		ChatTimeout: 5 * time.Minute, RetentionEvery: time.Hour,
	}
}

// Deps are the bridge's collaborators; cmd builds them.
type Deps struct {
	Backend Backend
	// DB is the writer pool of Ada's SQLite file (storage.DB.Writer), for
	// mautrix's crypto store and room-state store, which own their tables
	// there and version them themselves.
	DB *sql.DB
	// State is the bridge's own state (storage.DB.Bridge()).
	State StateStore
	// Retention deletes documents that rooms caused to be stored (turns,
	// summaries, memories) older than a cutoff: core.Service.SweepRetention.
	// Nil leaves them to whoever runs the core.
	Retention RetentionSweeper
	Logger    *slog.Logger
	// Now is the clock; nil = time.Now. Retention tests move it.
	Now func() time.Time
	// HTTPClient talks to the homeserver; nil = mautrix's default.
	HTTPClient *http.Client
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
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.ChatTimeout <= 0 {
		o.ChatTimeout = 5 * time.Minute
	}
	if o.RetentionEvery <= 0 {
		o.RetentionEvery = time.Hour
	}
	if o.DisplayName == "" {
		o.DisplayName = "Ada"
	}
	return errors.Join(errs...)
}
