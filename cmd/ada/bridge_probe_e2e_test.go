package main

import (
	"net"
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

// TestBotSaysWhyTheAPIRefusedItsAddress: an API without API_KEY answers
// only loopback names and PUBLIC_URL's host, so a bridge that calls it by
// another address is refused at start with the API's reason (naming
// PUBLIC_URL and API_KEY), not told that a key it does not have is wrong.
func TestBotSaysWhyTheAPIRefusedItsAddress(t *testing.T) {
	ip := nonLoopbackIPv4(t)
	api := startAda(t, "serve", testEnv(t, map[string]string{"LISTEN_ADDR": "0.0.0.0:0"}))
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(api.URL, "http://"))
	out, err := runOnce(t, "bot", testEnv(t, map[string]string{
		"ADA_API_URL":       "http://" + net.JoinHostPort(ip, port),
		"MATRIX_HOMESERVER": "http://127.0.0.1:1", "MATRIX_USER_ID": "@ada:example.org", "MATRIX_ACCESS_TOKEN": "tok",
	}))
	if err == nil || !strings.Contains(err.Error(), "ADA_API_URL") || !strings.Contains(err.Error(), "PUBLIC_URL") {
		t.Fatalf("ada bot calling the API by %s: %v\n%s", ip, err, out)
	}
}

// nonLoopbackIPv4 is an address of this machine other than loopback; the
// test is skipped on a machine without one.
func nonLoopbackIPv4(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no IPv4 address but loopback")
	return ""
}
