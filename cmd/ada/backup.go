package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/storage"
)

const backupUsage = `usage: ada backup FILE

Writes a consistent copy of DATA_DIR/ada.db to FILE while Ada keeps running
(it needs no lock and pauses nothing), checks the copy with SQLite's
integrity_check, and only then gives it the name FILE. The copy holds every
write Ada acknowledged before the backup began. FILE must not exist yet.
FILE is readable by its owner only (mode 0600): it holds every memory and
the bot's encryption keys.

To restore: stop Ada; move DATA_DIR/ada.db, DATA_DIR/ada.db-wal and
DATA_DIR/ada.db-shm out of the way; cp FILE DATA_DIR/ada.db (cp gives the
new file FILE's mode, 0600; run it as the user Ada runs as, or chown the
file to that user afterwards); start Ada.`

// runBackup copies the database to the file the one argument names.
func runBackup(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) > 0 && slices.Contains([]string{"help", "--help", "-h"}, args[0]) {
		fmt.Fprintln(stdout, backupUsage)
		return nil
	}
	if len(args) != 1 || args[0] == "" {
		return errors.New("backup: name the file to write: ada backup FILE (see ada backup --help)")
	}
	dst := args[0]
	start := time.Now()
	if err := storage.Backup(ctx, cfg.DBPath(), dst); err != nil {
		return err
	}
	size := int64(0)
	if st, err := os.Stat(dst); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stdout, "backup of %s written to %s (%d bytes, integrity ok, %s)\n",
		cfg.DBPath(), dst, size, time.Since(start).Round(time.Millisecond))
	return nil
}
