package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestFrontDoor: the bare address a browser is given leads somewhere (the
// memory page), and the icon it asks for by itself is there, so neither
// is a JSON 404 logged as a client's mistake.
func TestFrontDoor(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(ada.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	// /docs/ goes to /docs by a relative Location: behind a TLS proxy an
	// absolute one made from the request would say http://.
	resp, err = noFollow.Get(ada.URL + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "/docs" {
		t.Errorf("GET /docs/: %d to %q, want 308 to /docs", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Followed, it reaches the page.
	resp, err = http.Get(ada.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET / followed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, err = http.Get(ada.URL + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/") {
		t.Errorf("GET /favicon.ico: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ada.stop()
	for _, l := range logLines(ada, "level=WARN") {
		if strings.Contains(l, "favicon") || strings.Contains(l, "path=/ ") {
			t.Errorf("logged as a mistake: %s", l)
		}
	}
}

// TestStartStopLog: what an operator reads at start and stop. An LLM
// server that refuses the connection gets its fix in the warning; a clean
// stop ends with "stopped"; no log key has a space (log collectors and
// grep want one word).
func TestStartStopLog(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	ada := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": closed, "LOG_FORMAT": "json"}))
	ada.stop()

	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(ada.logs.String()))
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
		for k := range l {
			if strings.ContainsAny(k, " \t") {
				t.Errorf("log key %q has a space: %s", k, sc.Text())
			}
		}
	}
	var warned bool
	for _, l := range lines {
		if l["msg"] == "the LLM is not ready: chats fail until this is fixed" {
			warned = true
			if fix, _ := l["fix"].(string); !strings.Contains(fix, "LLM_BASE_URL") || !strings.Contains(fix, "ollama serve") {
				t.Errorf("the refused LLM's warning has no fix: %v", l)
			}
		}
	}
	if !warned {
		t.Errorf("no warning about the LLM:\n%s", ada.logs.String())
	}
	if n := len(lines); n == 0 || lines[n-1]["msg"] != "stopped" || lines[n-1]["level"] != "INFO" {
		t.Errorf("the last line of a clean stop is not \"stopped\":\n%s", ada.logs.String())
	}
}
