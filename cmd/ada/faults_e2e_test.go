package main

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// llmSwitch is the fake LLM behind a fixed address that can go down and
// come back, as a restarted Ollama does. It forwards to the fake over real
// HTTP, streaming each chunk as it comes.
type llmSwitch struct {
	t    *testing.T
	addr string
	to   *url.URL
	srv  *http.Server
}

func newLLMSwitch(t *testing.T, llm *llmtest.Server) *llmSwitch {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	to, _ := url.Parse(llm.URL())
	s := &llmSwitch{t: t, addr: ln.Addr().String(), to: to}
	s.serve(ln)
	t.Cleanup(s.down)
	return s
}

func (s *llmSwitch) URL() string { return "http://" + s.addr }

func (s *llmSwitch) serve(ln net.Listener) {
	p := httputil.NewSingleHostReverseProxy(s.to)
	p.FlushInterval = -1
	// A cut stream is the point of some cases; the proxy need not say so.
	p.ErrorLog = log.New(io.Discard, "", 0)
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The proxy's transport may still be reading the request body (a
		// last read to check it was no longer than declared) when the fake's
		// answer comes back. By default net/http's server closes an unread
		// request body once the response starts, which fails that read, and
		// the transport then drops the connection to the fake, cutting the
		// stream Ada is reading (golang/go#40747). Full duplex leaves the body
		// alone; HTTP/1 always supports it.
		_ = http.NewResponseController(w).EnableFullDuplex()
		p.ServeHTTP(w, r)
	})}
	// Ada keeps no idle connection to the switch. Otherwise the first
	// request after down() races Ada's transport noticing that the switch
	// closed its pooled connection, and fails with "connection closed"
	// instead of the "connection refused" of an LLM that stays down.
	s.srv.SetKeepAlivesEnabled(false)
	go func() { _ = s.srv.Serve(ln) }()
}

func (s *llmSwitch) down() {
	if s.srv != nil {
		_ = s.srv.Close()
		s.srv = nil
	}
}

func (s *llmSwitch) up() {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatalf("the LLM cannot come back on %s: %v", s.addr, err)
	}
	s.serve(ln)
}

// Every way the LLM can fail gives a clear 5xx on /v1/chat and an error
// event on the stream, stores nothing for the failed turns, and the next
// chat after the LLM recovers is answered and stored.
func TestLLMFaultsFailCleanlyStoreNothingAndRecover(t *testing.T) {
	cases := []struct {
		name   string
		reply  llmtest.Reply // the failing reply, for the JSON and the stream call
		down   bool          // nothing listens at the LLM's address
		status int
		want   string // in the detail and the error event
	}{
		{name: "down", down: true, status: 500, want: "connection refused"},
		{name: "slower than REQUEST_TIMEOUT_SECONDS", reply: llmtest.Reply{Tokens: []string{"late"}, FirstDelay: 3 * time.Second}, status: 504, want: "timed out"},
		{name: "HTTP 500", reply: llmtest.Reply{Status: 500, Error: "model crashed"}, status: 500, want: "500"},
		{name: "garbage", reply: llmtest.Reply{Tokens: []string{"half"}, Malformed: true}, status: 500, want: "LLM backend"},
		{name: "stream cut mid-answer", reply: llmtest.Reply{Tokens: []string{"The answer is"}, Abort: true}, status: 500, want: "LLM backend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			llm := llmtest.New(t)
			sw := newLLMSwitch(t, llm)
			env := testEnv(t, map[string]string{"LLM_BACKEND": "ollama", "LLM_BASE_URL": sw.URL(), "LLM_MODEL": llmtest.ModelName,
				"REQUEST_TIMEOUT_SECONDS": "1"})
			ada := startAda(t, "serve", env)
			if tc.down {
				sw.down()
			} else {
				llm.Script(tc.reply, tc.reply)
			}

			var d detail
			st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi", "save_memory": true, "memory_text": "never stored"}, &d)
			if st != tc.status || !strings.Contains(d.Detail, tc.want) {
				t.Errorf("chat: %d %q, want %d mentioning %q", st, d.Detail, tc.status, tc.want)
			}
			evs := ada.openStream(map[string]any{"prompt": "hi", "save_memory": true, "memory_text": "never stored"}).all()
			if last := evs[len(evs)-1]; last.Type != "error" || !strings.Contains(last.Error, tc.want) {
				t.Errorf("stream ended with %+v, want an error event mentioning %q", last, tc.want)
			}
			ada.call("GET", "/v1/healthz", nil, nil) // a request after both, so their writes (if any) are done
			for _, typ := range []core.DocType{core.DocTurn, core.DocMemory} {
				if docs := documentsIn(t, env, core.Filter{Type: typ}); len(docs) != 0 {
					t.Fatalf("the failed turns wrote %d %s documents", len(docs), typ)
				}
			}

			// The LLM comes back: the next chat is answered and stored.
			if tc.down {
				sw.up()
			}
			llm.Script(llmtest.Reply{Tokens: []string{"Back again."}})
			var r chatResponse
			if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hello?"}, &r); st != 200 || r.Response != "Back again." {
				t.Fatalf("after recovery: %d %+v", st, r)
			}
			if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 2 {
				t.Fatalf("the recovered chat stored %d turns, want 2", len(docs))
			}
		})
	}
}
