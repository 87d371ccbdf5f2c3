package storage

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

const (
	webTTL   = 15 * time.Minute
	webEvery = time.Minute
)

// TestWebLoginStoredHashed: the database holds the token's hash, never the
// token, in the table or anywhere in its files.
func TestWebLoginStoredHashed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	token, ok, err := db.Bridge().IssueWebLogin(ctx, "@m:example.org", time.Now(), webTTL, webEvery)
	if err != nil || !ok {
		t.Fatalf("issue: %v %v", ok, err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %d bytes of base64url (%v), want 32", len(raw), err)
	}
	var hash []byte
	if err := db.write.QueryRowContext(ctx, `SELECT token_hash FROM bridge_web_logins`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(hash, webTokenHash(token)) {
		t.Errorf("the row keeps %x, not the token's SHA-256", hash)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ada.db*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(token)) || bytes.Contains(b, raw) {
			t.Errorf("%s holds the raw token", filepath.Base(f))
		}
	}
}

// TestWebLoginSingleUseAndExpiry: a token redeems once, for its member, and
// not at or after its expiry (an injected clock); a spent or unknown token
// is NotFound; a member gets one link a minute; forget me takes theirs.
func TestWebLoginSingleUseAndExpiry(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	issue := func(user string, at time.Time) (string, bool) {
		t.Helper()
		tok, ok, err := b.IssueWebLogin(ctx, user, at, webTTL, webEvery)
		if err != nil {
			t.Fatal(err)
		}
		return tok, ok
	}
	notFound := func(tok string, at time.Time, why string) {
		t.Helper()
		if u, _, err := b.RedeemWebLogin(ctx, tok, at); core.KindOf(err) != core.KindNotFound {
			t.Errorf("%s: got %q, %v; want NotFound", why, u, err)
		}
	}

	open := func(tok string, at time.Time) bool {
		t.Helper()
		ok, err := b.WebLoginOpen(ctx, tok, at)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	tok, _ := issue("@m:example.org", now)
	if !open(tok, now.Add(time.Minute)) || !open(tok, now.Add(time.Minute)) {
		t.Fatal("an outstanding token is not open, or looking spent it")
	}
	if open(tok, now.Add(webTTL)) {
		t.Error("a token is open at its expiry")
	}
	if u, _, err := b.RedeemWebLogin(ctx, tok, now.Add(time.Minute)); err != nil || u != "@m:example.org" {
		t.Fatalf("redeem: %q %v", u, err)
	}
	notFound(tok, now.Add(time.Minute), "a spent token")
	if open(tok, now.Add(time.Minute)) || open("not-a-token", now) {
		t.Error("a spent or unknown token is open")
	}
	notFound("not-a-token", now, "an unknown token")

	at := now.Add(2 * time.Minute)
	if _, ok := issue("@m:example.org", at); !ok {
		t.Fatal("no link after the first was spent")
	}
	if _, ok := issue("@m:example.org", at.Add(59*time.Second)); ok {
		t.Error("a second link within a minute was issued")
	}
	late, ok := issue("@m:example.org", at.Add(61*time.Second))
	if !ok {
		t.Fatal("no link a minute later")
	}
	if _, ok := issue("@other:example.org", at.Add(61*time.Second)); !ok {
		t.Error("one member's link held back another's")
	}
	notFound(late, at.Add(61*time.Second+webTTL), "a token at its expiry")
	var n int
	if err := b.w.QueryRowContext(ctx, `SELECT count(*) FROM bridge_web_logins WHERE user_id = '@m:example.org'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("expired tokens not swept: %d left (%v)", n, err)
	}

	gone, _ := issue("@m:example.org", now.Add(time.Hour))
	if err := b.EndWebSessions(ctx, "@m:example.org"); err != nil {
		t.Fatal(err)
	}
	notFound(gone, now.Add(time.Hour), "a token of a member who was forgotten")
}

// TestWebLoginConcurrentRedeem: of many redeems of one token at once,
// exactly one succeeds.
func TestWebLoginConcurrentRedeem(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.Now()
	tok, _, err := b.IssueWebLogin(ctx, "@m:example.org", now, webTTL, webEvery)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, _, err := b.RedeemWebLogin(ctx, tok, now)
			switch {
			case err == nil && u == "@m:example.org":
				mu.Lock()
				won++
				mu.Unlock()
			case core.KindOf(err) != core.KindNotFound:
				t.Errorf("redeem: %q %v", u, err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d redeems succeeded, want exactly 1", won)
	}
}

// TestWebSessionEpoch (issue 36): a redeemed link gives the member's
// current sessions epoch; ending the member's sessions replaces it (so the
// page ends the sessions opened under the old one) and takes their links;
// another member's epoch stays.
func TestWebSessionEpoch(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.Now()
	login := func(user string, at time.Time) string {
		t.Helper()
		tok, ok, err := b.IssueWebLogin(ctx, user, at, webTTL, webEvery)
		if err != nil || !ok {
			t.Fatalf("issue: %v %v", ok, err)
		}
		u, epoch, err := b.RedeemWebLogin(ctx, tok, at)
		if err != nil || u != user {
			t.Fatalf("redeem: %q %v", u, err)
		}
		if cur, err := b.WebSessionEpoch(ctx, user); err != nil || cur != epoch {
			t.Fatalf("the epoch of a session just opened is %q, now %q (%v)", epoch, cur, err)
		}
		return epoch
	}
	first, other := login("@m:example.org", now), login("@o:example.org", now)
	pending, _, err := b.IssueWebLogin(ctx, "@m:example.org", now.Add(time.Minute), webTTL, webEvery)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EndWebSessions(ctx, "@m:example.org"); err != nil {
		t.Fatal(err)
	}
	if cur, err := b.WebSessionEpoch(ctx, "@m:example.org"); err != nil || cur == first {
		t.Errorf("the epoch after ending the sessions: %q (was %q), %v", cur, first, err)
	}
	if cur, _ := b.WebSessionEpoch(ctx, "@o:example.org"); cur != other {
		t.Errorf("another member's sessions were ended: %q, was %q", cur, other)
	}
	if _, _, err := b.RedeemWebLogin(ctx, pending, now.Add(time.Minute)); core.KindOf(err) != core.KindNotFound {
		t.Errorf("a link outlived the end of the sessions: %v", err)
	}
	if second := login("@m:example.org", now.Add(2*time.Minute)); second == first {
		t.Error("a new session has the ended sessions' epoch")
	}
}
