package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/ada-chat/ada/core"
)

func TestSanitise(t *testing.T) {
	e := NewEndpoint("LLM backend x", "http://h:1", "sk-SECRET", nil)
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"key sk-SECRET echoed", "key [redacted] echoed"},
		{"  lines\n\tand\r\x00 controls  ", "lines and controls"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{strings.Repeat("a", 250), strings.Repeat("a", 200) + "…"},
	}
	for _, tc := range cases {
		if got := e.sanitise(tc.in); got != tc.want {
			t.Errorf("sanitise(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	cases := []struct{ ct, body, want string }{
		{"application/json", `{"error":"model not found"}`, "model not found"},
		{"application/json", `{"error":{"message":"quota","type":"x"}}`, "quota"},
		{"application/json", `{"detail":"nope"}`, "nope"},
		{"text/plain", "upstream gone", "upstream gone"},
		{"text/html; charset=utf-8", "<html>502</html>", ""},
	}
	for _, tc := range cases {
		if got := errorText(tc.ct, []byte(tc.body)); got != tc.want {
			t.Errorf("errorText(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestFail(t *testing.T) {
	e := NewEndpoint("LLM backend x", "http://h:1", "", nil)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		kind core.ErrorKind
		msg  string
		is   error
	}{
		{"refused", context.Background(), fmt.Errorf("dial: %w", syscall.ECONNREFUSED), core.KindUpstream, "connection refused", syscall.ECONNREFUSED},
		{"canceled", cancelled, errors.New("read: use of closed"), core.KindCanceled, "request canceled", context.Canceled},
		{"deadline", expired, errors.New("read: use of closed"), core.KindUpstream, "timed out", context.DeadlineExceeded},
	}
	for _, tc := range cases {
		err := e.Fail(tc.ctx, tc.err)
		if core.KindOf(err) != tc.kind || !strings.Contains(core.SafeMessage(err), tc.msg) || !errors.Is(err, tc.is) {
			t.Errorf("%s: %v (kind %v)", tc.name, err, core.KindOf(err))
		}
		if msg := core.SafeMessage(err); !strings.HasPrefix(msg, "LLM backend x: ") || strings.Contains(msg, "http://h:1") {
			t.Errorf("%s: message %q must name the backend, not its address", tc.name, msg)
		}
		if !strings.Contains(err.Error(), "at http://h:1") {
			t.Errorf("%s: error %q does not keep the address for the log", tc.name, err.Error())
		}
	}
}

func TestAddrHidesCredentials(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://u:p@host:1/base/?key=s#f", "http://host:1/base"},
		{"https://host", "https://host"},
		{"host:11434", "(invalid URL)"},
		{"http://u:p@[::1", "(invalid URL)"},
	}
	for _, tc := range cases {
		e := NewEndpoint("x", tc.in, "", nil)
		if e.Addr() != tc.want {
			t.Errorf("Addr(%q) = %q, want %q", tc.in, e.Addr(), tc.want)
		}
		if e.err != nil && strings.Contains(e.err.Error(), "p@") {
			t.Errorf("error shows the password: %v", e.err)
		}
	}
}

func TestNormalize(t *testing.T) {
	e := NewEndpoint("embedder x", "http://h:1", "", nil)
	v := [][]float32{{3, 4}}
	if err := e.Normalize(v, 1, 2, "m"); err != nil || v[0][0] != 0.6 || v[0][1] != 0.8 {
		t.Errorf("got %v, %v", v, err)
	}
	for _, bad := range [][][]float32{{{0, 0}}, {{1, 2, 3}}, {}} {
		if err := e.Normalize(bad, 1, 2, "m"); core.KindOf(err) != core.KindUpstream || !strings.Contains(err.Error(), "model m") {
			t.Errorf("Normalize(%v) = %v", bad, err)
		}
	}
}
