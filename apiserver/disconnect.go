package apiserver

import (
	"errors"
	"net"
	"os"
	"time"
)

// watchDisconnect cancels a stream as soon as its client closes the
// connection. fasthttp reports a gone client only when a write fails, and the
// first write into a reset socket often still succeeds, so a silent model
// could keep generating for a long time. While a stream is being written the
// server reads nothing from the connection, so a read here returns only when
// the client closes it (or sends a pipelined request, which SSE clients do
// not; streams are answered with Connection: close, so nothing is lost).
func watchDisconnect(conn net.Conn, cancel func()) {
	if conn == nil {
		return
	}
	go func() {
		// The server's read deadline for the request is still set; clear it
		// so a quiet client is not mistaken for a gone one.
		_ = conn.SetReadDeadline(time.Time{})
		var b [1]byte
		for {
			_, err := conn.Read(b[:])
			if err == nil {
				continue
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				_ = conn.SetReadDeadline(time.Time{})
				continue
			}
			cancel()
			return
		}
	}()
}
