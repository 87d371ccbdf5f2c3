package dendritetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	startTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
	// bindAttempts covers the window between picking a free port and dendrite
	// binding it, in which another process may take it.
	bindAttempts = 3
	logTailLines = 60
)

// Server is a running dendrite homeserver owned by one test.
type Server struct {
	url          string
	sharedSecret string
	logPath      string
	http         *http.Client
	// What Restart needs to start the same homeserver again.
	bin, configPath, dir string
	proc                 *process
}

// URL returns the homeserver base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// ServerName returns the Matrix server name (the part after ':' in user IDs).
func (s *Server) ServerName() string { return serverName }

// Start launches a fresh dendrite for t and waits until it serves the client
// API. It is stopped (process group killed) in t.Cleanup; if the test failed,
// the tail of the dendrite log is printed first.
func Start(t testing.TB) *Server {
	t.Helper()
	bins := requireBinaries(t)
	dir := t.TempDir()
	configPath, secret := writeConfig(t, bins, dir)
	s := &Server{
		sharedSecret: secret,
		logPath:      filepath.Join(dir, "dendrite.log"),
		http:         &http.Client{Timeout: 30 * time.Second},
		bin:          bins.dendrite, configPath: configPath, dir: dir,
	}

	began := time.Now()
	var err error
	for attempt := 1; attempt <= bindAttempts; attempt++ {
		var addr string
		if addr, err = freeLoopbackAddr(); err != nil {
			break
		}
		if s.proc, err = s.launch(t, addr); err == nil {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("dendritetest: last lines of %s:\n%s", s.logPath, tail(s.logPath, logTailLines))
				}
				if err := s.proc.stop(); err != nil {
					t.Errorf("dendritetest: %v", err)
				}
			})
			t.Logf("dendritetest: homeserver %s ready in %s (log: %s)", s.url, time.Since(began).Round(time.Millisecond), s.logPath)
			return s
		}
		if !strings.Contains(tail(s.logPath, logTailLines), "address already in use") {
			break
		}
	}
	t.Fatalf("dendritetest: %v\nlast lines of %s:\n%s", err, s.logPath, tail(s.logPath, logTailLines))
	return nil
}

// Restart stops the homeserver and starts it again on the same address and
// database, as an operator's restart would: clients see their requests fail
// for a moment, then the same server with the same rooms and users.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.proc.stop(); err != nil {
		t.Fatalf("dendritetest: stop for restart: %v", err)
	}
	p, err := s.launch(t, strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatalf("dendritetest: restart: %v\nlast lines of %s:\n%s", err, s.logPath, tail(s.logPath, logTailLines))
	}
	s.proc = p
}

// launch starts dendrite on addr and waits for readiness. On error the
// process has already been stopped.
func (s *Server) launch(t testing.TB, addr string) (*process, error) {
	// Appending keeps the output of failed bind attempts for the error report.
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	// No -https-bind-address/-tls-*: without a certificate dendrite serves
	// HTTP only. No -really-enable-open-registration: users come from the
	// shared-secret API.
	cmd := exec.Command(s.bin, "-config", s.configPath, "-http-bind-address", addr)
	cmd.Dir = s.dir
	p, err := startProcess(cmd, logFile)
	if err != nil {
		return nil, fmt.Errorf("start dendrite: %w", err)
	}
	s.url = "http://" + addr

	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	if err := s.waitReady(ctx, p); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
}

// waitReady polls the cheapest client API endpoint until it answers 200. It
// is registered after every other route, so 200 means the server is usable.
func (s *Server) waitReady(ctx context.Context, p *process) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/_matrix/client/versions", nil)
		if err != nil {
			return err
		}
		if resp, err := s.http.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			return fmt.Errorf("dendrite exited during startup: %v", p.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("dendrite not ready at %s after %s: %w", s.url, startTimeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// freeLoopbackAddr asks the kernel for an unused port. It is released before
// dendrite binds it, hence the retry in Start.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// tail returns up to n trailing lines of a (possibly large) log file.
func tail(path string, n int) string {
	const maxBytes = 64 << 10
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxBytes {
		_, _ = f.Seek(-maxBytes, 2)
	}
	buf := make([]byte, maxBytes)
	k, _ := f.Read(buf)
	lines := strings.Split(strings.TrimRight(string(buf[:k]), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
