package main

import (
	"strings"
	"testing"
)

// TestBotRefusesAWrongAPIKeyAtStart: `ada bot` with ADA_API_URL checks the
// API and its key before anything else, and a refused key stops it with a
// message naming ADA_API_URL and API_KEY (and never the key).
func TestBotRefusesAWrongAPIKeyAtStart(t *testing.T) {
	api := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": "the-right-key-0123"}))
	out, err := runOnce(t, "bot", testEnv(t, map[string]string{
		"ADA_API_URL": api.URL, "API_KEY": "a-wrong-key-01234",
		"MATRIX_HOMESERVER": "http://127.0.0.1:1", "MATRIX_USER_ID": "@ada:example.org", "MATRIX_ACCESS_TOKEN": "tok",
	}))
	if err == nil || !strings.Contains(err.Error(), "refused API_KEY") || !strings.Contains(err.Error(), "ADA_API_URL") {
		t.Fatalf("ada bot with a wrong key: %v\n%s", err, out)
	}
	if strings.Contains(err.Error()+out, "a-wrong-key-01234") {
		t.Fatal("the key was printed")
	}
}
