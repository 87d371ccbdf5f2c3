package apiserver

import (
	"io"
	"net"
	"sync/atomic"
	"time"
)

// A refused body (413) leaves the client still sending it. Closing the
// connection with unread bytes in its receive buffer makes the kernel answer
// with a reset, and a client that is still writing then sees "connection reset
// by peer" instead of the 413 and its {"detail"} — under load it loses that
// race often. So a connection whose body was refused closes the way nginx's
// lingering_close does: send FIN after the response, read and drop what the
// client still sends for a bounded time and size, then close.
const (
	lingerTimeout  = 2 * time.Second
	lingerMaxBytes = 64 << 20
)

// lingerListener hands fasthttp connections that can linger on close.
type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lingerConn{Conn: c}, nil
}

type lingerConn struct {
	net.Conn
	linger atomic.Bool
}

// lingerOnClose marks c (if it is one of ours) to drain before it closes.
func lingerOnClose(c net.Conn) {
	if lc, ok := c.(*lingerConn); ok {
		lc.linger.Store(true)
	}
}

func (c *lingerConn) Close() error {
	if !c.linger.Swap(false) {
		return c.Conn.Close()
	}
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(lingerTimeout))
	_, _ = io.CopyN(io.Discard, c.Conn, lingerMaxBytes)
	return c.Conn.Close()
}
