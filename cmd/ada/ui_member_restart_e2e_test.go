package main

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestMemoryPageMemberSessionOverRestart (issue 40 item 5): in the real
// program (`ada up`) on a real homeserver, in a room of three, a member's
// page session goes on after Ada restarts; the database holds no session
// id; `!ada web logout` still ends it.
func TestMemoryPageMemberSessionOverRestart(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	addr := freeAddr(t)
	public := "http://" + addr
	env := bridgeEnv(t, hs, acct, llm, map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": public, "API_KEY": "member-restart-key-0123",
	})
	p := startAda(t, "up", env)
	r := newPageRoom(t, hs, acct.UserID, public, "restart")
	b := r.login()
	signedIn := "Signed in as " + r.alice.Client.UserID.String()

	p.stop()
	startAda(t, "up", env)
	r.command("!ada help") // the bridge is connected again (before, the page answers 503)
	if st, body := pageOf(t, b, public+"/ui/memories"); st != http.StatusOK || !strings.Contains(body, signedIn) {
		t.Errorf("the member's page after a restart: %d\n%.1000s", st, body)
	}
	u, _ := url.Parse(public + "/ui/")
	for _, c := range b.Jar.Cookies(u) {
		if n := countIn(t, env["DATA_DIR"], c.Value); n != 0 {
			t.Errorf("the data directory holds the session id %d times", n)
		}
	}

	if got := r.command("!ada web logout"); !strings.Contains(got, "sessions are ended") {
		t.Errorf("the reply to !ada web logout: %q", got)
	}
	if st, body := pageOf(t, b, public+"/ui/memories"); st != http.StatusUnauthorized || !strings.Contains(body, "was ended") {
		t.Errorf("the member's page after !ada web logout: %d\n%.1000s", st, body)
	}
}

// countIn counts the occurrences of s in the files under dir.
func countIn(t *testing.T, dir, s string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n += bytes.Count(b, []byte(s))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
