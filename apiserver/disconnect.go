package apiserver

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// watchDisconnect calls gone as soon as the client closes the connection,
// and returns a function that stops watching and waits until the watcher
// has let go of the connection. fasthttp reports a gone client only when a
// write fails, and the first write into a reset socket often still
// succeeds, so without this a silent model (or the whole of a JSON chat)
// could keep generating for a client that left long ago.
//
// While a handler runs, or a stream is being written, the server reads
// nothing from the connection, so a read here returns only when the client
// closes it, or sends a pipelined request (which chat clients do not do).
// The returned stop reports whether the watcher swallowed such bytes: the
// connection must then be closed after the response, since the next request
// on it is no longer whole.
//
// stop must be called before the handler returns on a keep-alive
// connection, because fasthttp reads the next request from the same
// connection; a stream answered with Connection: close may leave it running.
// stop ends the blocked read with a past read deadline; fasthttp sets its
// own deadline again before it reads the next request.
func watchDisconnect(conn net.Conn, gone func()) (stop func() (dirty bool)) {
	if conn == nil {
		return func() bool { return false }
	}
	w := &watcher{conn: conn, done: make(chan struct{})}
	// The server's read deadline for the request is still set; clear it so
	// a quiet client is not mistaken for a gone one. This happens before the
	// goroutine starts, so it cannot undo a stop.
	_ = conn.SetReadDeadline(time.Time{})
	go w.watch(gone)
	return w.stop
}

type watcher struct {
	conn net.Conn
	done chan struct{}

	mu      sync.Mutex
	stopped bool
	dirty   bool
}

func (w *watcher) watch(gone func()) {
	defer close(w.done)
	var b [1]byte
	for {
		_, err := w.conn.Read(b[:])
		w.mu.Lock()
		stopped := w.stopped
		if err == nil {
			w.dirty = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && !stopped {
			// Someone else's deadline; the client is still there.
			_ = w.conn.SetReadDeadline(time.Time{})
		}
		w.mu.Unlock()
		switch {
		case stopped:
			return
		case err == nil, errors.Is(err, os.ErrDeadlineExceeded):
			continue
		}
		gone()
		return
	}
}

func (w *watcher) stop() bool {
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		_ = w.conn.SetReadDeadline(time.Now())
	}
	w.mu.Unlock()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dirty
}
