package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

// Closing the app ends the persona watcher before the database closes, even
// while a reload is running: no goroutine is left to write to a closed store.
// The reload is held deterministically by a persona file that is a named
// pipe: reading it blocks until the test writes to it.
func TestPersonaWatcherEndsBeforeTheDatabaseCloses(t *testing.T) {
	dir := t.TempDir()
	persona := filepath.Join(dir, "persona.md")
	if err := os.WriteFile(persona, []byte("# Ada\n\n## tone\nCalm.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "persona.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	env := testEnv(t, map[string]string{"PERSONA_FILE": persona})
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	a, err := openApp(context.Background(), cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Replace the 5 s watcher by one that reads the pipe at once.
	a.stop()
	a.watchPersona(core.PersonaSource{Path: fifo}, time.Millisecond)
	for !strings.Contains(goroutines(), "readPersona") {
		time.Sleep(time.Millisecond)
	}

	closed := make(chan struct{})
	go func() {
		a.close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("close returned while the persona watcher was still reloading")
	case <-time.After(time.Second):
	}
	// Let the reload finish; close then returns, with the watcher gone.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.WriteString("# Ada\n\n## tone\nBrisk.\n")
	w.Close()
	<-closed
	if g := goroutines(); strings.Contains(g, "WatchPersona") {
		t.Fatalf("the persona watcher still runs after close:\n%s", g)
	}
	if l := logs.String(); strings.Contains(l, "database is closed") || strings.Contains(l, "persona reload failed") {
		t.Fatalf("the watcher failed around the close:\n%s", l)
	}
}

func goroutines() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}
