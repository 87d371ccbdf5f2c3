package llmtest

import (
	"net/http"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// encoder writes one protocol's stream frames.
type encoder interface {
	contentType() string
	chunk(p piece) []byte
	// end closes the stream with its finish reason, reporting the call's
	// token counts.
	end(finish string, u core.Usage) []byte
	streamError(msg string) []byte
	malformed() []byte
}

// player sends one scripted reply and notices when the client goes away.
type player struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	stop <-chan struct{}
	gone bool // the client went away
}

// play streams reply to the client and records how it ended.
func (s *Server) play(w http.ResponseWriter, r *http.Request, rec *Request, reply Reply, enc encoder) {
	p := &player{w: w, rc: http.NewResponseController(w), r: r, stop: s.stop}
	// Deferred so that an Abort panic is recorded too.
	defer func() { s.finish(rec, p.gone || r.Context().Err() != nil) }()

	w.Header().Set("Content-Type", enc.contentType())
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if !p.flush() {
		return
	}
	pieces := reply.pieces()
	for i, pc := range pieces {
		if !p.hold(reply, i, len(pieces)) || !p.sleep(delay(reply, i)) || !p.write(enc.chunk(pc)) {
			return
		}
	}
	if !p.hold(reply, len(pieces), len(pieces)) {
		return
	}
	if len(pieces) == 0 && !p.sleep(reply.FirstDelay) {
		return
	}
	switch {
	case reply.Malformed:
		p.write(enc.malformed())
	case reply.StreamError:
		p.write(enc.streamError(reply.errorText()))
	case reply.Abort:
		// The documented way to make net/http drop the connection without
		// ending the chunked body.
		panic(http.ErrAbortHandler)
	case reply.Hang:
		p.wait(nil)
	default:
		p.write(enc.end(reply.finish(), usageOf(rec, pieces)))
	}
}

func delay(r Reply, i int) time.Duration {
	if i == 0 {
		return r.FirstDelay
	}
	return r.ChunkDelay
}

// hold waits for r.Hold if the script holds before chunk i of n (i == n is
// the end of the stream).
func (p *player) hold(r Reply, i, n int) bool {
	if r.Hold == nil || i != min(r.HoldAfter, n) {
		return true
	}
	return p.wait(r.Hold)
}

// wait blocks until release is closed (nil: never), the client goes away or
// the server closes. It reports whether to go on.
func (p *player) wait(release <-chan struct{}) bool {
	select {
	case <-release:
		return true
	case <-p.r.Context().Done():
		p.gone = true
		return false
	case <-p.stop:
		return false
	}
}

func (p *player) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.r.Context().Done():
		p.gone = true
		return false
	case <-p.stop:
		return false
	}
}

// write sends one frame and flushes it, so every chunk travels on its own.
func (p *player) write(b []byte) bool {
	if _, err := p.w.Write(b); err != nil {
		p.gone = true
		return false
	}
	return p.flush()
}

func (p *player) flush() bool {
	if err := p.rc.Flush(); err != nil {
		p.gone = true
		return false
	}
	return true
}

// usageOf counts tokens as the fake's words: a word of the request's
// messages is a prompt token, a streamed piece of answer a completion token.
func usageOf(rec *Request, pieces []piece) core.Usage {
	var u core.Usage
	for _, m := range rec.Messages {
		u.PromptTokens += len(strings.Fields(m.Content))
	}
	for _, pc := range pieces {
		if pc.kind == core.LLMToken {
			u.CompletionTokens++
		}
	}
	return u
}
