package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/apiserver/mcp"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

const mcpUsage = `usage: ada mcp [--entity NAME]

Serves Ada's memory tools (search_memory, add_memory, update_memory,
delete_memory, list_memories, recall_conversation) as a Model Context
Protocol server on stdin and stdout, for desktop apps that start a local
process. Logs go to stderr. It opens the database in DATA_DIR itself, so it
cannot run beside ada up or ada serve on the same DATA_DIR: point the app at
a running Ada's /mcp URL instead (docs/api.md: Ada as an MCP server).

  --entity NAME   scope every call to NAME's memories: calls that name no
                  entity get it, calls that name another are refused, only
                  NAME's memories can be changed and only NAME's
                  conversations recalled (any other id answers as
                  unknown). NAME is an end user, never a Matrix id (it
                  must not start with @, !, # or +).`

// runMCP serves MCP on stdio until the client closes stdin or ctx ends.
// The transport is the process's own stdin and stdout (not runEnv's
// writers), which is what a desktop app connects to; stdout carries nothing
// else.
func runMCP(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ada mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	entity := fs.String("entity", "", "")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, mcpUsage+"\n\n"+settingsHelp)
		return nil
	case err != nil:
		return fmt.Errorf("mcp: %w (see ada mcp --help)", err)
	case fs.NArg() > 0:
		return fmt.Errorf("mcp takes no arguments, got %q (see ada mcp --help)", fs.Arg(0))
	}
	if err := core.CheckFrontEndUser("--entity", *entity); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	// Ada's own MCP server has no chat, so the MCP servers' tools would
	// never run: they are not started.
	noTools := *cfg
	noTools.MCPServersFile = ""
	a, err := openApp(ctx, &noTools, log, nil)
	if err != nil {
		return err
	}
	defer a.close()
	log = log.With("component", "mcp")
	log.Info("ada mcp serving on stdio", "version", buildVersion(), "db", cfg.DBPath(), "entity", *entity)
	srv := mcp.NewServer(a.core, mcp.Options{Entity: *entity, Version: buildVersion(), Log: log})
	in := &stdinReader{r: os.Stdin}
	err = srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: nopCloser{os.Stdout}})
	if err != nil && ctx.Err() == nil && !in.closed.Load() {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil // the client closed stdin, or Ada was stopped: the normal ends
}

// stdinReader remembers that the client closed stdin, the normal end of a
// stdio session, which the SDK reports as an error like any broken pipe.
type stdinReader struct {
	r      io.Reader
	closed atomic.Bool
}

func (s *stdinReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if errors.Is(err, io.EOF) {
		s.closed.Store(true)
	}
	return n, err
}

func (s *stdinReader) Close() error { return nil }

// nopCloser leaves stdout open when the session ends: the process's log
// and exit status still follow.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
