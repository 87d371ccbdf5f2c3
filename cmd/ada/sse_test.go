package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseEvent is one decoded `data:` line, or a comment line.
type sseEvent struct {
	Type    string          `json:"type"`
	Content string          `json:"content"`
	Error   string          `json:"error"`
	Raw     json.RawMessage `json:"-"`
	Comment string          `json:"-"`
	At      time.Time       `json:"-"`
}

// stream is an open chat stream read line by line.
type stream struct {
	t      testing.TB
	resp   *http.Response
	sc     *bufio.Scanner
	cancel context.CancelFunc
}

func (p *adaProc) openStream(body any) *stream {
	p.t.Helper()
	data, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "POST", p.URL+"/v1/chat/stream", bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		p.t.Fatalf("open stream: %v", err)
	}
	p.t.Cleanup(func() { cancel(); resp.Body.Close() })
	return &stream{t: p.t, resp: resp, sc: bufio.NewScanner(resp.Body), cancel: cancel}
}

// next returns the next event or comment; ok is false at the end.
func (s *stream) next() (sseEvent, bool) {
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, ":"):
			return sseEvent{Comment: strings.TrimSpace(line[1:]), At: time.Now()}, true
		case strings.HasPrefix(line, "data: "):
			var ev sseEvent
			raw := []byte(strings.TrimPrefix(line, "data: "))
			if err := json.Unmarshal(raw, &ev); err != nil {
				s.t.Fatalf("bad event line %q: %v", line, err)
			}
			ev.Raw, ev.At = raw, time.Now()
			return ev, true
		default:
			s.t.Fatalf("unexpected line in the stream: %q", line)
		}
	}
	return sseEvent{}, false
}

// all reads every remaining event (comments excluded).
func (s *stream) all() []sseEvent {
	var out []sseEvent
	for {
		ev, ok := s.next()
		if !ok {
			return out
		}
		if ev.Comment == "" {
			out = append(out, ev)
		}
	}
}

func eventTypes(evs []sseEvent) string {
	var parts []string
	for _, e := range evs {
		if len(parts) > 0 && parts[len(parts)-1] == e.Type {
			continue
		}
		parts = append(parts, e.Type)
	}
	return strings.Join(parts, ",")
}

func joinContent(evs []sseEvent, typ string) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == typ {
			b.WriteString(e.Content)
		}
	}
	return b.String()
}
