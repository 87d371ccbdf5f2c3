package apiserver

import (
	"bufio"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// handleChat answers with one JSON object once the whole answer is there.
// The client may hang up while the model writes; the watcher then cancels
// the request, so the LLM call stops and core writes nothing for the turn.
func (s *Server) handleChat(r *request) error {
	req, err := s.decodeChatRequest(r)
	if err != nil {
		return err
	}
	res, err := s.chatWatched(r, req)
	if err != nil {
		return err
	}
	res.RequestID = r.id
	writeJSON(r.RequestCtx, 200, res)
	return nil
}

// chatWatched runs the chat while watching the connection for a client that
// hangs up. The watcher is stopped however the chat ends, a panic included:
// left running, it would read the next request's first bytes off a
// keep-alive connection.
func (s *Server) chatWatched(r *request, req core.ChatRequest) (core.ChatResult, error) {
	stop := watchDisconnect(r.Conn(), r.clientGone)
	defer func() {
		if stop() {
			r.SetConnectionClose()
		}
	}()
	return s.core.Chat(r.ctx, req, func(core.Event) error { return nil })
}

// handleChatStream validates the request, then hands the response to a body
// stream writer that runs core.Chat and writes each event as it comes.
func (s *Server) handleChatStream(r *request) error {
	req, err := s.decodeChatRequest(r)
	if err != nil {
		return err
	}
	s.startStream(r, req, adaEvents{})
	return nil
}

// startStream answers with an event stream in enc's format, which
// streamChat writes after the handler returned, with the request's end
// handed to it.
func (s *Server) startStream(r *request, req core.ChatRequest, enc streamEncoder) {
	r.SetContentType("text/event-stream; charset=utf-8")
	r.Response.Header.Set("Cache-Control", "no-cache")
	r.Response.Header.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	r.SetConnectionClose()
	// The connection closes after the stream, so the watcher may outlive it.
	watchDisconnect(r.Conn(), r.clientGone)
	end, id := r.handOff(), r.id
	r.SetBodyStreamWriter(func(w *bufio.Writer) { s.streamChat(end, id, req, w, enc) })
}

// streamEncoder writes a chat's events in one stream format: Ada's own
// events, or OpenAI's chunks. streamChat runs the chat and the stream the
// same way for every format.
type streamEncoder interface {
	// start is written before the first event ("" for nothing).
	start() string
	// event renders one event as SSE frames ("" for none).
	event(ev core.Event) (string, error)
	// failure renders the error that ends a stream.
	failure(err error) string
}

// adaEvents is Ada's own stream: one data frame per event (SPEC.md § Events).
type adaEvents struct{}

func (adaEvents) start() string { return "" }

func (adaEvents) event(ev core.Event) (string, error) {
	if ev.Type == core.EventSpecialistCall {
		return "", nil // in-process only; specialist_result follows
	}
	data, err := wire.EncodeEvent(ev)
	if err != nil {
		return "", err
	}
	return sseData(data), nil
}

// sseData is one SSE data frame.
func sseData(data []byte) string { return "data: " + string(data) + "\n\n" }

func (e adaEvents) failure(err error) string {
	frame, _ := e.event(wire.ErrorEvent(err))
	return frame
}

// sseWriter serialises events and keep-alives onto one connection. The first
// failed write means the client is gone: it cancels the request context, so
// core stops the LLM call and writes nothing.
type sseWriter struct {
	mu        sync.Mutex
	w         *bufio.Writer
	cancel    func()
	err       error
	lastWrite time.Time
}

func (sw *sseWriter) write(s string) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.err != nil {
		return sw.err
	}
	if _, err := sw.w.WriteString(s); err != nil {
		sw.fail(err)
		return sw.err
	}
	if err := sw.w.Flush(); err != nil {
		sw.fail(err)
	}
	sw.lastWrite = time.Now()
	return sw.err
}

// silentFor reports how long nothing was written.
func (sw *sseWriter) silentFor() time.Duration {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return time.Since(sw.lastWrite)
}

// errClientGone is the failure of a stream whose client left.
var errClientGone = errors.New("client went away")

func (sw *sseWriter) fail(err error) {
	sw.err = fmt.Errorf("%w: %w", errClientGone, err)
	sw.cancel()
}

// frames writes what an encoder rendered, if anything.
func (sw *sseWriter) frames(s string, err error) error {
	if err != nil || s == "" {
		return err
	}
	return sw.write(s)
}

// streamChat runs after the handler returned, with the request's end
// handed to it: it cancels the request and writes its log line when the
// stream ends.
func (s *Server) streamChat(end requestEnd, requestID string, req core.ChatRequest, w *bufio.Writer, enc streamEncoder) {
	sw := &sseWriter{w: w, cancel: end.clientGone, lastWrite: time.Now()}
	defer s.deps.Metrics.Stream()()
	var failure error
	defer func() {
		if p := recover(); p != nil {
			failure = fmt.Errorf("panic in stream: %v", p)
			_ = sw.frames(enc.failure(core.Errorf(core.KindInternal, "internal error")), nil)
		}
		end.finish(200, failure)
	}()
	stop := s.keepAlive(sw)
	err := sw.frames(enc.start(), nil)
	if err == nil {
		_, err = s.core.Chat(end.ctx, req, func(ev core.Event) error {
			if ev.Done != nil {
				ev.Done.RequestID = requestID
			}
			return sw.frames(enc.event(ev))
		})
	}
	stop()
	if err = s.whyEnded(end.ctx, err); err != nil {
		failure = err
		if sw.err != nil {
			failure = sw.err // the client left; what core made of it is a consequence
		}
		if !errors.Is(failure, errClientGone) {
			_ = sw.frames(enc.failure(err), nil)
		}
	}
}

// keepAlive sends an SSE comment whenever the stream has been silent for the
// keep-alive interval, so proxies and clients do not time out while the
// model thinks. It returns a function that stops it and waits.
func (s *Server) keepAlive(sw *sseWriter) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Check a few times per interval so a comment follows soon after
		// the stream has been silent for the whole interval.
		t := time.NewTicker(s.cfg.KeepAlive / 4)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if sw.silentFor() < s.cfg.KeepAlive {
					continue
				}
				if sw.write(": keep-alive\n\n") != nil {
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
