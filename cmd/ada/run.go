package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// version and buildDate are set at build time with -ldflags
// "-X main.version=... -X main.buildDate=..." (Makefile's LDFLAGS).
var (
	version   = "dev"
	buildDate = ""
)

// runEnv is everything the process takes from the outside world, so tests
// can run the real program with their own settings and see where it listens.
type runEnv struct {
	args []string
	// lookupEnv tells an unset variable from an empty one (os.LookupEnv).
	lookupEnv func(string) (string, bool)
	// stdin is what ada import reads from "-"; os.Stdin when nil.
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// ready, if set, is called once the API listens, with its address.
	ready func(apiAddr string)
	// deps, if set, may replace core's dependencies before core is built:
	// the chat benchmark wraps the store, embedder and LLM to time each
	// stage of a chat.
	deps func(*core.Deps)
	// built, if set, is given core once it is built: end-to-end tests wait
	// on its background work (core.Service.Wait) to prove that something
	// did not happen.
	built func(*core.Service)
}

const usage = `usage: ada <command>

commands:
  up        run the HTTP API and, when MATRIX_HOMESERVER is set, the Matrix bridge
  serve     run the HTTP API only
  bot       run the Matrix bridge only
  migrate   apply database migrations and exit
  reindex   re-embed every stored document with the configured embedder
  mcp       serve the memory tools to an MCP client on stdio (see ada mcp --help)
  backup    write a checked copy of the database while Ada runs: ada backup FILE
  export    write every document and memory history as JSON Lines, while Ada runs: ada export [FILE]
  import    read an export into this data directory (resumable): ada import [FILE]
  migrate-store  copy every document between SQLite and Chroma: ada migrate-store --to chroma|sqlite
  eval      measure retrieval on a benchmark: ada eval retrieval FILE (see ada eval retrieval --help)
  version   print the version

Run ada <command> --help for the usage of one command.

` + settingsHelp

func run(ctx context.Context, env runEnv) error {
	if len(env.args) == 0 {
		fmt.Fprintln(env.stderr, usage)
		return errors.New("no command given")
	}
	cmd := env.args[0]
	if done, err := parseCommandArgs(cmd, env.args[1:], env.stdout); done {
		return err
	}
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintf(env.stdout, "ada %s\n%s", buildVersion(), buildInfo(buildDate))
		return nil
	case "help", "--help", "-h":
		fmt.Fprintln(env.stdout, usage)
		return nil
	case "up", "serve", "bot", "migrate", "reindex", "eval", "backup", "export", "import", "migrate-store", "mcp":
	default:
		fmt.Fprintln(env.stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	getenv, file, err := withEnvFile(env.lookupEnv)
	if err != nil {
		return err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid settings:\n%w", err)
	}
	log := newLogger(cfg, env.stderr)
	file.log(log)
	switch cmd {
	case "migrate":
		return runMigrate(ctx, cfg, env.stdout)
	case "reindex":
		return runReindex(ctx, cfg, log, env.stdout)
	case "backup":
		return runBackup(ctx, cfg, env.args[1:], env.stdout)
	case "export":
		return runExport(ctx, cfg, env.args[1:], env.stdout, env.stderr)
	case "import":
		stdin := env.stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		return runImport(ctx, cfg, log, env.args[1:], stdin, env.stdout, env.stderr)
	case "migrate-store":
		return runMigrateStore(ctx, cfg, log, env.args[1:], env.stdout, env.stderr)
	case "mcp":
		return runMCP(ctx, cfg, log, env.args[1:], env.stdout)
	case "eval":
		return runEval(ctx, cfg, log, env.args[1:], env.stdout, env.stderr)
	default:
		err := runServices(ctx, cmd, cfg, log, env)
		if err == nil {
			// The last line of a clean stop: everything finished or was
			// given its grace, and the store is closed.
			log.Info("stopped", "command", cmd)
		}
		return err
	}
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// buildInfo is what `ada version` says after the version: the database
// schema this binary writes (a newer one than the database's means the
// next start migrates it), the Go toolchain and the build date (when the
// build set it; else the commit's date, if Go recorded one).
func buildInfo(date string) string {
	if date == "" {
		date = "unknown (built without make)"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.time" {
					date = "from a commit of " + s.Value
				}
			}
		}
	}
	return fmt.Sprintf("database schema %d\n%s %s/%s\nbuilt %s\n",
		storage.LatestSchemaVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, date)
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
