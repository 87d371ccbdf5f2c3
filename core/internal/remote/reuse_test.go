package remote

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// TestPostRetriedOnAConnectionClosedUnderIt: the backend (or a proxy in
// front of it) closes a kept-alive connection just as the next request
// arrives on it. A POST is then sent again on a fresh connection instead
// of failing with EOF. The server answers the first request of every
// connection and closes the connection on its second, deterministically.
func TestPostRetriedOnAConnectionClosedUnderIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		client.CloseIdleConnections() // the last connection's reader ends
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				fmt.Fprint(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
				if _, err := http.ReadRequest(r); err == nil {
					return // the second request: close without an answer
				}
			})
		}
	})
	e := NewEndpoint("LLM backend test", "http://"+ln.Addr().String(), "", client)
	for i := range 3 {
		var out struct{ OK bool }
		if err := e.JSON(context.Background(), http.MethodPost, "/api/chat", map[string]int{"n": i}, &out, 1024); err != nil || !out.OK {
			t.Fatalf("POST %d on a reused connection: %v (ok %v)", i+1, err, out.OK)
		}
	}
}
