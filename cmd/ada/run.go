package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/joho/godotenv"

	"github.com/ada-chat/ada/config"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// runEnv is everything the process takes from the outside world, so tests
// can run the real program with their own settings and see where it listens.
type runEnv struct {
	args   []string
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	// ready, if set, is called once the API listens, with its address.
	ready func(apiAddr string)
}

const usage = `usage: ada <command>

commands:
  up        run the HTTP API and, when MATRIX_HOMESERVER is set, the Matrix bridge
  serve     run the HTTP API only
  bot       run the Matrix bridge only
  migrate   apply database migrations and exit
  reindex   re-embed every stored document with the configured embedder
  version   print the version

Settings come from the environment and from .env in the working directory
(the environment wins). See .env.example for every setting.`

func run(ctx context.Context, env runEnv) error {
	if len(env.args) == 0 {
		fmt.Fprintln(env.stderr, usage)
		return errors.New("no command given")
	}
	cmd := env.args[0]
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintf(env.stdout, "ada %s\n", buildVersion())
		return nil
	case "help", "--help", "-h":
		fmt.Fprintln(env.stdout, usage)
		return nil
	case "up", "serve", "bot", "migrate", "reindex":
	default:
		fmt.Fprintln(env.stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	getenv, err := withDotEnv(env.getenv)
	if err != nil {
		return err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("invalid settings:\n%w", err)
	}
	log := newLogger(cfg, env.stderr)
	switch cmd {
	case "migrate":
		return runMigrate(ctx, cfg, env.stdout)
	case "reindex":
		return runReindex(ctx, cfg, log, env.stdout)
	default:
		return runServices(ctx, cmd, cfg, log, env)
	}
}

// withDotEnv layers .env (if present) under the real environment.
func withDotEnv(getenv func(string) string) (func(string) string, error) {
	file := getenv("ADA_ENV_FILE")
	if file == "" {
		file = ".env"
	}
	vals, err := godotenv.Read(file)
	if errors.Is(err, os.ErrNotExist) {
		return getenv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return vals[k]
	}, nil
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
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
