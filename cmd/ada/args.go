package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// commandHelp is the usage text of each subcommand that takes no arguments.
var commandHelp = map[string]string{
	"up": `usage: ada up

Runs the HTTP API on LISTEN_ADDR and, when MATRIX_HOMESERVER is set, the
Matrix bridge, in one process sharing one database in DATA_DIR.`,
	"serve": `usage: ada serve

Runs the HTTP API alone on LISTEN_ADDR, with the database in DATA_DIR.`,
	"bot": `usage: ada bot

Runs the Matrix bridge alone (MATRIX_HOMESERVER must be set). It uses the core
in this process, or the Ada API at ADA_API_URL when that is set; its own state
lives in the database in DATA_DIR either way.`,
	"migrate": `usage: ada migrate

Applies pending database migrations to DATA_DIR/ada.db and exits.`,
	"reindex": `usage: ada reindex

Re-embeds every stored document with the configured embedder (EMBED_BACKEND),
after a change of embedder. Resumable: run it again after an interruption.`,
	"version": `usage: ada version

Prints the version, the database schema version this binary writes, the Go
version it was built with and the build date.`,
}

// settingsHelp ends every usage text.
const settingsHelp = `Settings come from the environment and from .env in the working directory (if
there is one), or the file named by ADA_ENV_FILE (which must exist); the
environment wins, even a variable set to empty. The file holds NAME=value lines,
# comments and blank lines only. See .env.example for every setting. The commands that write the
database (up, serve, bot, migrate, reindex, import, mcp) hold DATA_DIR for
themselves: a second one on the same directory stops at start.`

// parseCommandArgs answers --help or -h with the command's usage, and refuses
// any other flag or argument, before anything starts: a mistyped flag must
// never run a server with the defaults. It reports whether the command is
// done; commands it does not know (eval parses its own) are left alone.
func parseCommandArgs(cmd string, args []string, stdout io.Writer) (bool, error) {
	help, ok := commandHelp[cmd]
	if !ok {
		return false, nil
	}
	fs := flag.NewFlagSet("ada "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error is returned, the usage printed below
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, help+"\n\n"+settingsHelp)
		return true, nil
	case err != nil:
		return true, fmt.Errorf("%s: %w (see ada %s --help)", cmd, err, cmd)
	case fs.NArg() > 0:
		return true, fmt.Errorf("%s takes no arguments, got %q (see ada %s --help)", cmd, fs.Arg(0), cmd)
	}
	return false, nil
}
