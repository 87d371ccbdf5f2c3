package bot

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/core/specialists/ocr"
	"github.com/ada-chat/ada/core/specialists/websearch"
	"github.com/ada-chat/ada/storage"
)

// syncBuffer collects log output from several goroutines.
type syncBuffer = bottest.LogBuffer

// testClock is an injectable clock for the core and the bot.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *testClock) Set(offset time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset = offset
}

// botEnv is a running bridge built the way cmd/ada builds it: the real
// SQLite store, the real core with the Ollama client pointed at the scripted
// fake LLM, and bot.New + Run. (How cmd/ada maps the settings onto Options is
// tested there.)
type botEnv struct {
	t      testing.TB
	db     *storage.DB
	svc    *core.Service
	ocr    *ocr.Extractor
	bot    *Bot
	clock  *testClock
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// botSetup is a test bridge: its options, and the settings of what the
// harness wires around it.
type botSetup struct {
	Options
	LogLevel      slog.Level
	LLMURL        string
	OCRMaxBytes   int64
	SummaryEveryN int
	// Transcriber, if set, transcribes voice messages.
	Transcriber Transcriber
	// WebSearchURL, if set, gives the core the web_search specialist.
	WebSearchURL string
	// Specialists are more specialists for the core (MCP tools).
	Specialists []core.Specialist
	// ClockAhead sets the bridge's and the core's clock this far ahead of
	// the real one from the start (a restart "later").
	ClockAhead time.Duration
}

// dbPath is the bridge's database in its DATA_DIR, as in cmd/ada.
func (s botSetup) dbPath() string { return filepath.Join(s.DataDir, "ada.db") }

// defaultOptions are the bridge's options from the default settings: the
// bridge has none of its own (OptionsFrom).
func defaultOptions() Options {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		panic(err) // the defaults are tested to load in config
	}
	return OptionsFrom(cfg, "")
}

// botSettings is a test bridge with the default options, logged in with
// acct's password; each change then adjusts it.
func botSettings(hs *bottest.Homeserver, llm *llmtest.Server, acct bottest.Account, dataDir string, change ...func(*botSetup)) botSetup {
	s := botSetup{Options: defaultOptions(), LogLevel: slog.LevelDebug, LLMURL: llm.URL(), OCRMaxBytes: 10 << 20,
		SummaryEveryN: 100} // no background summaries eating scripted replies
	s.Homeserver, s.UserID, s.Password = hs.URL(), acct.UserID.String(), acct.Password
	s.DataDir, s.Version = dataDir, "test-version"
	// A stop with an answer still running waits this long, not the default 30 s.
	s.ShutdownGrace = 5 * time.Second
	for _, c := range change {
		c(&s)
	}
	return s
}

// startBot runs a bridge with the given settings until the test ends (or
// stop is called), and waits until it has caught up.
func startBot(t testing.TB, s botSetup) *botEnv {
	t.Helper()
	e := &botEnv{t: t, clock: &testClock{offset: s.ClockAhead}, logs: &syncBuffer{}, done: make(chan error, 1)}
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: s.LogLevel}))
	ctx := context.Background()
	var err error
	if e.db, err = storage.Open(ctx, s.dbPath()); err != nil {
		t.Fatalf("storage: %v", err)
	}
	emb := embed.Hash{}
	if err := e.db.CheckEmbedder(ctx, emb.Name()); err != nil {
		t.Fatalf("embedder: %v", err)
	}
	opts := core.DefaultOptions()
	opts.SummaryEveryN = s.SummaryEveryN
	opts.Models = s.RoomModels
	llm := ollama.New(ollama.Options{BaseURL: s.LLMURL, Model: llmtest.ModelName})
	sps := s.Specialists
	if s.WebSearchURL != "" {
		ws, err := websearch.New(websearch.Options{URL: s.WebSearchURL})
		if err != nil {
			t.Fatalf("web_search: %v", err)
		}
		sps = append([]core.Specialist{ws}, sps...)
	}
	reg, err := core.NewRegistry(sps...)
	if err != nil {
		t.Fatalf("specialists: %v", err)
	}
	relay := &forgetRelay{bridge: e.db.Bridge()}
	e.svc = core.New(core.Deps{Store: e.db, Embedder: emb, LLM: llm, Specialists: reg, Logger: log, Now: e.clock.Now, Forgotten: relay}, opts)
	e.ocr = ocr.New(ocr.Options{Binary: "tesseract", Languages: "eng", MaxBytes: s.OCRMaxBytes})
	e.bot, err = New(s.Options, Deps{
		Backend: NewCoreBackend(e.svc, e.ocr), Transcriber: s.Transcriber, DB: e.db.Writer(), State: e.db.Bridge(),
		Retention: e.svc, Logger: log, Now: e.clock.Now,
	})
	if err != nil {
		t.Fatalf("bot.New: %v", err)
	}
	relay.bot = e.bot
	// As cmd/ada: the bridge in the core's process gives it reminders.
	if err := reg.SetTagged(ReminderTag, e.bot.ReminderSpecialist()); err != nil {
		t.Fatalf("reminder specialist: %v", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.done <- e.bot.Run(runCtx) }()
	t.Cleanup(func() {
		e.stop()
		if t.Failed() {
			t.Logf("bot log (tail):\n%s", e.logs.Tail(80))
		}
	})
	select {
	case <-e.bot.Ready():
	case err := <-e.done:
		e.done <- err
		t.Fatalf("bot exited before it was ready: %v\n%s", err, e.logs.Tail(60))
	case <-time.After(bottest.Timeout):
		t.Fatalf("bot not ready after %s\n%s", bottest.Timeout, e.logs.Tail(60))
	}
	return e
}

// stop ends the bridge and checks that Run returned cleanly; safe to call twice.
func (e *botEnv) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	e.cancel = nil
	select {
	case err := <-e.done:
		if err != nil {
			e.t.Errorf("bot.Run returned %v", err)
		}
	case <-time.After(15 * time.Second):
		e.t.Errorf("bot did not stop within 15s")
	}
	e.svc.Close()
	e.db.Close()
}

// count runs a COUNT(*) query on the bridge's database.
func (e *botEnv) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Reader().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// storedFromRoom counts what the database holds from a room: the bridge's
// room messages and the core documents (turns, summaries, memories).
func (e *botEnv) storedFromRoom(room id.RoomID) (messages, documents int) {
	return e.count(`SELECT count(*) FROM bridge_messages WHERE room_id = ?`, room.String()),
		e.count(`SELECT count(*) FROM documents WHERE room_id = ?`, room.String())
}

func (e *botEnv) reader() *sql.DB { return e.db.Reader() }

// fmtMessages flattens an LLM conversation for substring checks.
func fmtMessages(msgs []core.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

func coreErr(kind int, msg string) error {
	return &core.Error{Kind: core.ErrorKind(kind), Message: msg}
}

// waitFor waits until cond holds, for at most bottest.Timeout: for states
// the bridge shows no event for (its status).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bottest.Timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s", what, bottest.Timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
