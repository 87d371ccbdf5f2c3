package mcptools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// Options configures the manager.
type Options struct {
	// Timeout bounds one tool call (MCP_TOOL_TIMEOUT_SECONDS); 30 s when zero.
	Timeout time.Duration
	// StartTimeout bounds starting a server and listing its tools; 30 s
	// when zero.
	StartTimeout time.Duration
	// Version is Ada's, sent as the client's version.
	Version string
	Logger  *slog.Logger
	// HTTPClient carries the requests to url servers; a new client when nil.
	HTTPClient *http.Client
	// Tools, when set, is told a server's tools whenever they change: when
	// it (re)connects and when it says its list changed. Calls for one
	// server come in order; it must not call back into the manager.
	Tools func(server string, tools []core.Specialist)
}

const (
	defaultTimeout = 30 * time.Second
	// The restart delay doubles from firstBackoff up to maxBackoff; a
	// server that stayed up for stableAfter starts again from firstBackoff.
	firstBackoff = time.Second
	maxBackoff   = time.Minute
	stableAfter  = time.Minute
)

// Manager holds the connections to the servers of the file and their
// tools as specialists. Close ends them.
type Manager struct {
	// observe is the metrics hook of every call (Observe); nil = none.
	observe atomic.Pointer[func(tool string, err error, d time.Duration)]
	conns   []*conn
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// Start connects to every server and lists its tools. A server that does
// not start is logged and reported by Status, and tried again with
// backoff; it never stops Ada. A server that exits or drops later is
// started again with backoff, its tools failing meanwhile. Every list of
// tools goes to Options.Tools.
func Start(ctx context.Context, servers []Server, opts Options) *Manager {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	// The connections live as long as the manager, not as ctx.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &Manager{cancel: cancel}
	// The servers start at once: a slow one delays Ada's start by its own
	// time only.
	type opened struct {
		sess  *mcp.ClientSession
		tools []*mcp.Tool
		err   error
	}
	results := make([]opened, len(servers))
	var starting sync.WaitGroup
	for i, s := range servers {
		c := &conn{spec: s, opts: opts, log: opts.Logger.With("mcp_server", s.Name), observe: &m.observe, relist: make(chan struct{}, 1)}
		m.conns = append(m.conns, c)
		starting.Go(func() {
			sctx, scancel := context.WithTimeout(ctx, opts.StartTimeout)
			defer scancel()
			r := &results[i]
			r.sess, r.tools, r.err = c.open(sctx)
		})
	}
	starting.Wait()
	for i, s := range servers {
		c, sess, tools, err := m.conns[i], results[i].sess, results[i].tools, results[i].err
		if err != nil {
			c.log.Error("MCP server did not start; trying again with backoff", "server", s, "error", err)
			c.setDown(err.Error())
		} else {
			c.setUp(sess)
			c.setTools(sess, tools)
			c.log.Info("MCP server connected", "server", s, "tools", len(tools))
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			c.supervise(life, sess)
		}()
	}
	return m
}

// Observe sets the hook told of every tool call (the metrics): the tool's
// specialist name, its error, its duration.
func (m *Manager) Observe(fn func(tool string, err error, d time.Duration)) { m.observe.Store(&fn) }

// Specialists are the current tools of every server: the last list of a
// server that is down, none of one that never started.
func (m *Manager) Specialists() []core.Specialist {
	var out []core.Specialist
	for _, c := range m.conns {
		c.mu.Lock()
		out = append(out, c.current...)
		c.mu.Unlock()
	}
	return out
}

// Status is one server's state for health.
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Up        bool   `json:"up"`
	Tools     int    `json:"tools"`
	Restarts  int    `json:"restarts"`
	// Error is why the server is down; never a value of env or headers.
	Error string `json:"error,omitempty"`
}

// Status reports every server, by name.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.conns))
	for _, c := range m.conns {
		out = append(out, c.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close ends every connection, stops the stdio servers and waits for the
// restart loops.
func (m *Manager) Close() {
	m.cancel()
	for _, c := range m.conns {
		c.close()
	}
	m.wg.Wait()
}

// conn is one server: its current session (nil while down) and why.
type conn struct {
	spec    Server
	opts    Options
	log     *slog.Logger
	observe *atomic.Pointer[func(tool string, err error, d time.Duration)]
	// relist is signalled when the server says its tools changed.
	relist chan struct{}

	mu       sync.Mutex
	sess     *mcp.ClientSession
	closed   bool
	err      string
	current  []core.Specialist // the last tools listed
	restarts int
}

// open starts or reaches the server and lists its tools. Its errors never
// hold the address's query, which may carry a key.
func (c *conn) open(ctx context.Context) (*mcp.ClientSession, []*mcp.Tool, error) {
	sess, tools, err := c.openRaw(ctx)
	return sess, tools, c.redact(err)
}

// redact drops the address's query from an error of a url server: the
// SDK's errors quote the whole address.
func (c *conn) redact(err error) error {
	if err == nil || c.spec.Stdio() || !strings.Contains(err.Error(), c.spec.URL) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.spec.URL, remote.WithoutQuery(c.spec.URL)))
}

func (c *conn) openRaw(ctx context.Context) (*mcp.ClientSession, []*mcp.Tool, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "ada", Version: c.opts.Version}, &mcp.ClientOptions{
		// The notification's handler must not call the server: wait lists
		// the tools again.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.relist <- struct{}{}:
			default: // a list is already due
			}
		},
	})
	sess, err := client.Connect(ctx, c.transport(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting: %w", err)
	}
	tools, err := listTools(ctx, sess)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, tools, nil
}

func listTools(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing the tools: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// transport is a stdio command with only the entry's environment plus
// PATH and HOME, or a streamable-HTTP client sending the entry's headers.
func (c *conn) transport() mcp.Transport {
	if c.spec.Stdio() {
		cmd := exec.Command(c.spec.Command, c.spec.Args...)
		cmd.Env = serverEnv(c.spec.Env)
		cmd.Stderr = &stderrLog{log: c.log}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	hc := *c.opts.HTTPClient
	hc.Transport = headerTransport{base: hc.Transport, headers: c.spec.Headers}
	return &mcp.StreamableClientTransport{Endpoint: c.spec.URL, HTTPClient: &hc, DisableStandaloneSSE: true}
}

// serverEnv is PATH and HOME from Ada's environment, then the entry's
// own variables: never Ada's settings or secrets.
func serverEnv(own map[string]string) []string {
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range own {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// headerTransport adds the entry's headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if len(t.headers) == 0 {
		return base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return base.RoundTrip(r)
}

// stderrLog logs what a stdio server writes on stderr, at debug level: a
// server's own diagnostics, which operators need when it fails.
type stderrLog struct{ log *slog.Logger }

func (w *stderrLog) Write(p []byte) (int, error) {
	w.log.Debug("MCP server stderr", "text", string(p))
	return len(p), nil
}

// supervise waits for the session to end and starts the server again,
// with backoff, until the manager closes.
func (c *conn) supervise(ctx context.Context, sess *mcp.ClientSession) {
	backoff := firstBackoff
	for {
		if sess != nil {
			up := time.Now()
			c.wait(sess)
			if ctx.Err() != nil {
				return
			}
			c.setDown("the server exited or the connection dropped; restarting")
			c.log.Warn("MCP server exited or dropped; restarting", "server", c.spec, "after", backoff)
			if time.Since(up) > stableAfter {
				backoff = firstBackoff
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
		sctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
		s, tools, err := c.open(sctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.setDown(err.Error())
			c.log.Warn("MCP server did not restart", "server", c.spec, "error", err, "next_try", backoff)
			sess = nil
			continue
		}
		if !c.setUp(s) {
			s.Close()
			return
		}
		c.setTools(s, tools)
		c.log.Info("MCP server restarted", "server", c.spec, "tools", len(tools))
		sess = s
	}
}

// wait returns when the session ends, listing the tools again whenever
// the server says they changed.
func (c *conn) wait(sess *mcp.ClientSession) {
	ended := make(chan struct{})
	go func() {
		sess.Wait()
		close(ended)
	}()
	for {
		select {
		case <-ended:
			return
		case <-c.relist:
			// Closing the session (the manager closing, or the server
			// going away) ends this call too.
			lctx, cancel := context.WithTimeout(context.Background(), c.opts.StartTimeout)
			tools, err := listTools(lctx, sess)
			cancel()
			if err != nil {
				c.log.Warn("MCP server said its tools changed, but listing them failed", "error", c.redact(err))
				continue
			}
			c.setTools(sess, tools)
			c.log.Info("MCP server's tools changed", "tools", len(tools))
		}
	}
}

// setTools makes tools the server's specialists and tells Options.Tools;
// the list of a session that has since ended is dropped.
func (c *conn) setTools(sess *mcp.ClientSession, tools []*mcp.Tool) {
	sps := c.specialists(tools)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.sess != sess {
		return
	}
	c.current = sps
	if c.opts.Tools != nil {
		c.opts.Tools(c.spec.Name, sps)
	}
}

// setUp records a working session; false once the manager closed.
func (c *conn) setUp(s *mcp.ClientSession) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.sess == nil && c.err != "" {
		c.restarts++
	}
	c.sess, c.err = s, ""
	return true
}

func (c *conn) setDown(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sess, c.err = nil, why
}

func (c *conn) session() *mcp.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.spec.Name, Transport: "http", Up: c.sess != nil, Tools: len(c.current), Restarts: c.restarts, Error: c.err}
	if c.spec.Stdio() {
		st.Transport = "stdio"
	}
	return st
}

func (c *conn) close() {
	c.mu.Lock()
	s := c.sess
	c.closed, c.sess = true, nil
	c.mu.Unlock()
	if s != nil {
		s.Close()
	}
}
