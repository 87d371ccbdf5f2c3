package main

import (
	"context"
	"testing"

	"github.com/ada-chat/ada/config"
)

// DB_SYNC reaches the store the program opens (PRAGMA synchronous: 1
// NORMAL, 2 FULL).
func TestDBSyncReachesTheStore(t *testing.T) {
	for setting, want := range map[string]int{"": 2, "full": 2, "normal": 1} {
		env := map[string]string{"DATA_DIR": t.TempDir(), "DB_SYNC": setting}
		cfg, err := config.Load(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		db, unlock, err := openStore(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		err = db.Writer().QueryRow("PRAGMA synchronous").Scan(&got)
		db.Close()
		unlock()
		if err != nil || got != want {
			t.Errorf("DB_SYNC=%q: synchronous %d (%v), want %d", setting, got, err, want)
		}
	}
}
