package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

// Bot is the Matrix bridge. New checks the settings; Run logs in, sets up
// encryption, and syncs until its context ends.
type Bot struct {
	opts Options
	deps Deps
	log  *slog.Logger
	zlog zerolog.Logger
	// quietZlog logs mautrix's requests at debug whatever their outcome; it
	// is used where Ada reports the failure itself (the login).
	quietZlog zerolog.Logger
	now       func() time.Time
	bridge    *storage.Bridge
	rooms     *roomStates

	// The room handlers the sync handlers dispatch to, built by New (build
	// shows who holds what); they go down to the answerer, commands, media
	// and window, and all of them to mx.
	messages *messageHandler
	members  *membership
	forget   *forgetting
	// reminders posts the rooms' reminders from one timer (Run starts it).
	reminders *reminders
	answers   *answerer // Run gives it the room queue
	mx        *matrix

	// Set by Run.
	queue *roomqueue.Queue
	// syncAt is when the latest /sync response arrived (unix ns; timings.go).
	syncAt atomic.Int64
	// startedAt divides the backlog from live messages (isBacklog).
	startedAt time.Time
	// joins are Ada's latest joins of rooms (joins.go; isBacklog).
	joins roomJoins
	// names are the rooms' names for the memory page (web_rooms.go).
	names roomNameCache

	ready     chan struct{}
	readyOnce sync.Once
	// synced is set by the first /sync (sync loop only); resumedCatchUp
	// while the events of a resumed bridge's first /sync, sent while it was
	// down, are dispatched (offline.go).
	synced         bool
	resumedCatchUp atomic.Bool

	statusMu sync.Mutex
	status   BridgeStatus
}

// The states of the bridge, as /v1/healthz shows them.
const (
	StateConnecting = "connecting" // logging in, or waiting for the homeserver
	StateRunning    = "running"    // logged in and syncing
	StateStopping   = "stopping"   // no longer syncing; answering what it accepted
	StateStopped    = "stopped"    // Run returned: stopped, or failed (Err says why)
)

// BridgeStatus is the bridge's state and, when it is failing, why.
type BridgeStatus struct {
	State string
	Err   string
}

// Status reports the bridge's state; safe from any goroutine.
func (b *Bot) Status() BridgeStatus {
	b.statusMu.Lock()
	defer b.statusMu.Unlock()
	return b.status
}

func (b *Bot) setStatus(state string, err error) {
	st := BridgeStatus{State: state}
	if err != nil {
		st.Err = err.Error()
	}
	b.statusMu.Lock()
	b.status = st
	b.statusMu.Unlock()
}

// New builds the bridge; nothing touches the network until Run.
func New(opts Options, deps Deps) (*Bot, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if deps.Backend == nil || deps.DB == nil || deps.State == nil {
		return nil, errors.New("bot: a Backend, a DB and a State store are required")
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Observer == nil {
		deps.Observer = noObserver{}
	}
	deps.Backend = tracedBackend{deps.Backend}
	b := &Bot{
		opts: opts, deps: deps, log: deps.Logger, zlog: newZerolog(deps.Logger), quietZlog: newQuietZerolog(deps.Logger), now: deps.Now,
		bridge: deps.State,
		rooms:  &roomStates{m: make(map[id.RoomID]*roomRuntime)},
		ready:  make(chan struct{}),
		status: BridgeStatus{State: StateConnecting},
	}
	b.build()
	return b, nil
}

// build makes the room handlers, each given only what it needs.
func (b *Bot) build() {
	opts, backend, log, now := b.opts, b.deps.Backend, b.log, b.now
	policy, act := newInvitePolicy(opts), newActivation(opts)
	gate := newCryptoGate()
	mx := &matrix{gate: &gate, rooms: b.rooms, name: opts.DisplayName, log: log}
	win := &window{bridge: b.bridge, rooms: b.rooms, mx: mx, keep: opts.MaxContextMessages,
		retentionDays: opts.RetentionDays, storeInRAG: opts.StoreInRAG, now: now, log: log}
	med := &media{mx: mx, backend: backend, rooms: b.rooms, act: act, address: newAddress(opts),
		respondToDMs: opts.RespondToDMs, log: log}
	settings := newRoomSettings(opts, b.bridge, log)
	quota := &quotas{limits: opts.Quotas, bridge: b.bridge, mx: mx, now: now, log: log}
	b.reminders = newReminders(opts, b.bridge, settings, mx, now, log)
	answers := &answerer{mx: mx, backend: backend, window: win, media: med, bridge: b.bridge, rooms: b.rooms,
		slots: make(chan struct{}, opts.Workers), timeout: opts.ChatTimeout, health: &chatHealth{}, settings: settings,
		quota: quota,
		streams: &streams{opts: opts.Stream, mx: mx, link: func(ctx context.Context, q *event.Event, kind string, posted id.EventID) {
			linkPosted(ctx, b.bridge, log, q, kind, []id.EventID{posted}, now())
		}}, observe: b.deps.Observer, now: now, log: log}
	cmds := &commands{mx: mx, backend: backend, bridge: b.bridge, window: win, rooms: b.rooms, opts: opts,
		health: answers.health, waiting: answers.waiting, inFlight: &answers.inFlight, settings: settings, quota: quota, now: now, log: log,
		web: &webLinks{mx: mx, bridge: b.bridge, publicURL: opts.PublicURL, pageServed: opts.WebPage, now: now, log: log}}
	cmds.reminders = b.reminders
	cmds.table = cmds.commandTable()
	b.forget = &forgetting{mx: mx, backend: backend, bridge: b.bridge, window: win, rooms: b.rooms,
		retention:    Retention{Days: opts.RetentionDays, Bridge: b.bridge, Documents: b.deps.Retention, Now: now, Log: log},
		purgeOnLeave: opts.PurgeOnLeave, observe: b.deps.Observer, now: now, log: log}
	b.messages = &messageHandler{mx: mx, window: win, media: med, answers: answers, cmds: cmds, forget: b.forget, bridge: b.bridge, stt: b.deps.Transcriber,
		policy: policy, act: act, respondToDMs: opts.RespondToDMs, observe: b.deps.Observer, now: now, log: log}
	b.members = &membership{mx: mx, bridge: b.bridge, policy: policy, rooms: b.rooms, opts: opts, now: now, log: log}
	b.answers, b.mx = answers, mx
}

// Ready is closed once the bot has logged in, set up encryption and
// received its first sync (it has caught up).
func (b *Bot) Ready() <-chan struct{} { return b.ready }

// UserID and DeviceID identify the bot's Matrix session (valid after Ready).
func (b *Bot) UserID() id.UserID     { return id.UserID(b.opts.UserID) }
func (b *Bot) DeviceID() id.DeviceID { return b.mx.cli.DeviceID }

// Run connects and syncs until ctx ends, then stops cleanly: the sync loop
// and the retention sweeper stop, the room work accepted so far runs for at
// most Options.ShutdownGrace, then what is left is cancelled and waited for. It returns nil on a normal stop. A Bot runs once.
func (b *Bot) Run(ctx context.Context) (err error) {
	defer func() { b.setStatus(StateStopped, err) }()
	// The bridge's work (answers, replies, reactions) outlives the sync by
	// the shutdown grace: what it accepted before the stop is answered.
	work, endWork := context.WithCancel(context.WithoutCancel(ctx))
	defer endWork()
	b.mx.runCtx = work
	b.startedAt = b.now()
	if err := b.connectWithRetry(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	b.setStatus(StateRunning, nil)
	accepted := &roomqueue.Work{}
	b.queue = roomqueue.New(work, maxParallelJobs, b.log, accepted)
	b.answers.queue, b.forget.pending.queue, b.messages.cmds.web.queue, b.reminders.queue = b.queue, b.queue, b.queue, b.queue
	b.answers.lines = roomqueue.New(work, maxParallelJobs, b.log, accepted)
	b.registerHandlers()

	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		b.runReminders(ctx)
	}()
	go func() {
		defer wg.Done()
		b.forget.retention.Loop(ctx)
	}()
	go func() {
		defer wg.Done()
		b.forget.pendingLoop(ctx)
	}()

	b.log.Info("Matrix bridge running", "user_id", b.opts.UserID, "device_id", b.mx.cli.DeviceID.String(),
		"homeserver", b.opts.Homeserver)
	err = b.mx.cli.SyncWithContext(ctx)
	b.mx.cli.StopSync()
	b.setStatus(StateStopping, nil)
	b.finishAccepted(accepted, endWork)
	b.queue.Close()
	b.answers.lines.Close()
	wg.Wait()
	b.log.Info("Matrix bridge stopped")
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("sync stopped: %w", err)
}

// finishAccepted lets the room queues run what they accepted, no new
// events coming in, for at most the shutdown grace; then ends the work:
// both queues stop at once, and a question still not answered gets ❌ and a
// notice from whichever holds it (answer_line.go).
func (b *Bot) finishAccepted(accepted *roomqueue.Work, endWork context.CancelFunc) {
	defer endWork()
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.ShutdownGrace)
	defer cancel()
	if err := accepted.Wait(ctx); err != nil {
		b.log.Warn("the shutdown grace ended before every accepted message was handled", "grace", b.opts.ShutdownGrace.String())
		return
	}
	b.log.Info("every accepted message was handled")
}

// maxParallelJobs bounds the room jobs running at once. Jobs mostly wait on
// the homeserver; the expensive part, making an answer, has its own, smaller
// bound (BOT_WORKERS), so reactions and commands in other rooms are not
// stuck behind slow answers.
const maxParallelJobs = 64

// Retry delays while the homeserver cannot be reached at start.
const (
	firstRetry = 2 * time.Second
	maxRetry   = time.Minute
)

// connectWithRetry keeps trying while the homeserver is unreachable or
// failing (it may start after Ada), with one warning per try that says when
// the next one is, but gives up at once on anything else, such as refused
// credentials: waiting cannot fix those.
func (b *Bot) connectWithRetry(ctx context.Context) error {
	delay := firstRetry
	for {
		err := b.connect(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		reason, retry := unreachableReason(err)
		if !retry {
			return err
		}
		b.setStatus(StateConnecting, err)
		b.log.Warn("cannot reach the homeserver yet; retrying", "homeserver", b.opts.Homeserver, "reason", reason,
			"retry_in", delay.String(), "next_retry", b.now().Add(delay).Format(time.RFC3339))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, maxRetry)
	}
}

// connect logs in, sets up end-to-end encryption and cross-signing, and
// sets the display name.
func (b *Bot) connect(ctx context.Context) error {
	if err := b.login(ctx); err != nil {
		return err
	}
	if err := b.setupCrypto(ctx); err != nil {
		return err
	}
	b.ensureCrossSigning(ctx)
	b.ensureDisplayName(ctx)
	return nil
}

// ensureDisplayName sets the profile name to BOT_DISPLAY_NAME, so that
// members see the name that wakes the bot.
func (b *Bot) ensureDisplayName(ctx context.Context) {
	cur, err := b.mx.cli.GetOwnDisplayName(ctx)
	if err == nil && cur.DisplayName == b.opts.DisplayName {
		return
	}
	if err := b.mx.cli.SetDisplayName(ctx, b.opts.DisplayName); err != nil {
		b.log.Warn("could not set the bot's display name", "display_name", b.opts.DisplayName, "error", err)
	}
}
