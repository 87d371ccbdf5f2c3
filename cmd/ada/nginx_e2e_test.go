package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// The shipped proxy configuration, relative to this package's directory.
const nginxConfPath = "../../deploy/nginx/ada.conf"

// The addresses in ada.conf that the test replaces with its own.
const (
	nginxConfListen   = "listen 5000;"
	nginxConfUpstream = "server 127.0.0.1:7000;"
)

// TestNginxProxiesTheAPI runs the real nginx with deploy/nginx/ada.conf in
// front of the real program and checks what a client behind the proxy sees.
func TestNginxProxiesTheAPI(t *testing.T) {
	bin := findNginx(t)
	ada, llm, _ := startChatAda(t, "ollama", nil)
	px := startNginx(t, bin, ada, nginxExtra{})

	t.Run("healthz", func(t *testing.T) {
		st, _, body := px.get(t, "/api/healthz")
		var h struct {
			OK bool `json:"ok"`
		}
		if err := json.Unmarshal(body, &h); st != 200 || err != nil || !h.OK {
			t.Fatalf("GET /api/healthz: %d %s", st, body)
		}
		// The /v1 paths pass through too, for "Try it out" on /docs.
		if st, _, body := px.get(t, "/v1/healthz"); st != 200 || !bytes.Contains(body, []byte(`"ok":true`)) {
			t.Fatalf("GET /v1/healthz through the proxy: %d %s", st, body)
		}
	})

	t.Run("error detail passes through", func(t *testing.T) {
		st, hdr, body := px.get(t, "/api/memory?limit=0")
		var d detail
		if err := json.Unmarshal(body, &d); st != 400 || err != nil || !strings.Contains(d.Detail, "limit") {
			t.Fatalf("GET /api/memory?limit=0: %d %s, want 400 with a detail naming limit", st, body)
		}
		if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("Content-Type %q", ct)
		}
		if st, _, body := px.get(t, "/api/no/such/path"); st != 404 || !bytes.Contains(body, []byte(`"detail"`)) {
			t.Fatalf("unknown path: %d %s", st, body)
		}
	})

	t.Run("stream is not buffered", func(t *testing.T) {
		checkStreamThroughProxy(t, px, llm)
	})

	t.Run("docs", func(t *testing.T) {
		st, hdr, body := px.get(t, "/docs")
		if st != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("swagger-ui")) {
			t.Fatalf("GET /docs: %d %q %.200s", st, hdr.Get("Content-Type"), body)
		}
		// What the page loads, resolved against /docs as a browser does.
		base, _ := url.Parse(px.URL + "/docs")
		refs := []string{"openapi.json"}
		for _, m := range []string{`href="`, `src="`} {
			for _, part := range strings.Split(string(body), m)[1:] {
				refs = append(refs, part[:strings.IndexByte(part, '"')])
			}
		}
		for _, ref := range refs {
			u, err := base.Parse(ref)
			if err != nil {
				t.Fatal(err)
			}
			if st, _, body := px.get(t, u.RequestURI()); st != 200 || len(body) == 0 {
				t.Errorf("the docs page loads %s: %d", u.RequestURI(), st)
			}
		}
		_, _, doc := px.get(t, "/openapi.json")
		var oa struct {
			OpenAPI string `json:"openapi"`
		}
		if err := json.Unmarshal(doc, &oa); err != nil || oa.OpenAPI == "" {
			t.Fatalf("/openapi.json through the proxy is not the OpenAPI document: %.200s", doc)
		}
	})

	t.Run("mcp", func(t *testing.T) {
		resp := mcpPost(t, px.URL, "tools/list", map[string]any{})
		defer resp.Body.Close()
		if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"search_memory"`)) {
			t.Fatalf("POST /mcp through the proxy: %d %.300s", resp.StatusCode, body)
		}
	})

	t.Run("body over the proxy limit", func(t *testing.T) {
		// nginx answers this itself; the body still has Ada's error shape.
		req, _ := http.NewRequest("POST", px.URL+"/api/ocr/extract", bytes.NewReader(make([]byte, 12<<20)))
		req.Header.Set("Content-Type", "application/octet-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var d detail
		if err := json.Unmarshal(body, &d); resp.StatusCode != 413 || err != nil || d.Detail == "" {
			t.Fatalf("12 MiB body: %d %s", resp.StatusCode, body)
		}
	})
}

// TestNginxConfigAloneKeepsTheStreamUnbuffered checks ada.conf's own settings
// in an unfriendly nginx: gzip is on for event streams in the http block (as
// an operator may have it in nginx.conf), and nginx ignores Ada's
// X-Accel-Buffering header, as if something in between had dropped it.
func TestNginxConfigAloneKeepsTheStreamUnbuffered(t *testing.T) {
	bin := findNginx(t)
	ada, llm, _ := startChatAda(t, "ollama", nil)
	px := startNginx(t, bin, ada, nginxExtra{
		http:   "gzip on; gzip_types text/event-stream application/json;",
		server: "proxy_ignore_headers X-Accel-Buffering;",
	})
	checkStreamThroughProxy(t, px, llm)
}

// nginxExtra is configuration the test adds around the shipped ada.conf.
type nginxExtra struct {
	http   string // in the http block, before ada.conf
	server string // at the top of ada.conf's server block
	ssl    bool   // ada.conf's listen takes TLS (certificate lines in server)
}

// checkStreamThroughProxy holds the fake LLM after its first token and
// requires that token to reach the client through nginx before the hold ends.
func checkStreamThroughProxy(t *testing.T, px *nginxProc, llm *llmtest.Server) {
	t.Helper()
	release := make(chan struct{})
	released := false
	free := func() {
		if !released {
			released = true
			close(release)
		}
	}
	defer free()
	llm.Script(llmtest.Reply{Tokens: []string{"first", " second"}, Hold: release, HoldAfter: 1})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type first struct {
		s   *stream
		ev  sseEvent
		err error
	}
	got := make(chan first, 1)
	// A buffering proxy can hold back even the response headers, so opening
	// the stream and reading its first event share one deadline.
	go func() {
		s, err := openStreamAt(ctx, t, px.URL+"/api/chat/stream", map[string]any{"prompt": "go"})
		if err != nil {
			got <- first{err: err}
			return
		}
		for { // skip keep-alive comments; the first event is what counts
			ev, ok := s.next()
			if !ok || ev.Comment == "" {
				got <- first{s: s, ev: ev}
				return
			}
		}
	}()
	var f first
	select {
	case f = <-got:
	case <-time.After(5 * time.Second):
		cancel()
		<-got
		t.Fatal("the first token did not pass the proxy while the LLM was still answering: nginx buffers the stream")
	}
	if f.err != nil {
		t.Fatalf("stream through the proxy: %v", f.err)
	}
	defer f.s.resp.Body.Close()
	if f.s.resp.StatusCode != 200 || !strings.HasPrefix(f.s.resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream through the proxy: %d %v", f.s.resp.StatusCode, f.s.resp.Header)
	}
	if f.ev.Type != "token" || f.ev.Content != "first" {
		t.Fatalf("first event through the proxy %+v, want the token \"first\"", f.ev)
	}
	free()
	evs := f.s.all()
	if got := joinContent(evs, "token"); got != " second" || eventTypes(evs) != "token,done" {
		t.Fatalf("rest of the stream: %s %q", eventTypes(evs), got)
	}
}

// openStreamAt opens a chat stream at any URL (openStream always uses Ada's).
// It reports errors instead of failing, so it may run in a goroutine.
func openStreamAt(ctx context.Context, t *testing.T, u string, body any) (*stream, error) {
	data, _ := json.Marshal(body)
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, "POST", u, bytes.NewReader(data))
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	return &stream{t: t, resp: resp, sc: bufio.NewScanner(resp.Body), cancel: cancel}, nil
}

// findNginx returns the nginx binary, or skips (fails under CI) without one.
func findNginx(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	// Debian installs it in /usr/sbin, which is not on every user's PATH.
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	msg := "nginx is not installed (Debian: apt-get install nginx, or `make apt-deps`); skipping the reverse-proxy test"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// nginxProc is an nginx started by the test in its own prefix directory.
type nginxProc struct {
	URL    string
	dir    string
	cmd    *exec.Cmd
	output *syncBuffer
	exited chan struct{}
}

func (p *nginxProc) errorLog() string {
	data, _ := os.ReadFile(filepath.Join(p.dir, "error.log"))
	return string(data) + p.output.String()
}

func (p *nginxProc) get(t *testing.T, path string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(p.URL + path)
	if err != nil {
		t.Fatalf("GET %s through nginx: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s through nginx: reading the body: %v", path, err)
	}
	return resp.StatusCode, resp.Header, body
}

// nginxConfig is ada.conf with the test's addresses, inside a minimal
// nginx.conf that keeps every file nginx writes under dir.
func nginxConfig(t *testing.T, dir, listen, upstream string, extra nginxExtra) string {
	t.Helper()
	raw, err := os.ReadFile(nginxConfPath)
	if err != nil {
		t.Fatalf("reading the shipped config: %v", err)
	}
	site := string(raw)
	for _, r := range [][2]string{
		{nginxConfListen, "listen " + listen + map[bool]string{true: " ssl"}[extra.ssl] + ";"},
		{nginxConfUpstream, "server " + upstream + ";"},
	} {
		if strings.Count(site, r[0]) != 1 {
			t.Fatalf("%s must contain %q exactly once (the test replaces it)", nginxConfPath, r[0])
		}
		site = strings.Replace(site, r[0], r[1], 1)
	}
	if extra.server != "" {
		site = strings.Replace(site, "server_name _;", "server_name _;\n    "+extra.server, 1)
	}
	if err := os.WriteFile(filepath.Join(dir, "ada.conf"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, "tmp", sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// master_process off: one process running as the test's user, so it needs
	// no "user" directive or root, even when the tests run as root.
	main := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events {
    worker_connections 256;
}
http {
    access_log %[1]s/access.log;
    client_body_temp_path %[1]s/tmp/client_body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    %[2]s
    include %[1]s/ada.conf;
}
`, dir, extra.http)
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}

// startNginx starts nginx with ada.conf on a free port in front of ada and
// stops it when the test ends.
func startNginx(t *testing.T, bin string, ada *adaProc, extra nginxExtra) *nginxProc {
	t.Helper()
	upstream := strings.TrimPrefix(ada.URL, "http://")
	// A free port can be taken between the probe and nginx's bind; retry then.
	for attempt := 1; ; attempt++ {
		p, err := tryStartNginx(t, bin, "", upstream, extra)
		if err == nil {
			return p
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			t.Fatal(err)
		}
	}
}

// startNginxAt is startNginx on the address addr, which Ada had to know
// before it started (its PUBLIC_URL): no retry on another port then.
func startNginxAt(t *testing.T, bin, addr string, ada *adaProc, extra nginxExtra) *nginxProc {
	t.Helper()
	p, err := tryStartNginx(t, bin, addr, strings.TrimPrefix(ada.URL, "http://"), extra)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tryStartNginx starts nginx listening on addr, or on a free port when addr
// is empty.
func tryStartNginx(t *testing.T, bin, addr, upstream string, extra nginxExtra) (*nginxProc, error) {
	t.Helper()
	if addr == "" {
		addr = freeAddr(t)
	}

	dir := t.TempDir()
	conf := nginxConfig(t, dir, addr, upstream, extra)
	// -e: the error log nginx uses before it has read the config, which
	// otherwise is /var/log/nginx/error.log.
	args := []string{"-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf}
	if out, err := exec.Command(bin, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t rejects the config: %v\n%s\nconfig:\n%s", err, out, readFile(filepath.Join(dir, "ada.conf")))
	}

	scheme := "http://"
	if extra.ssl {
		scheme = "https://"
	}
	p := &nginxProc{URL: scheme + addr, dir: dir, output: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	stop := func() {
		p.cmd.Process.Kill()
		<-p.exited
	}

	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("nginx exited at start: %s", p.errorLog())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, errors.New("nginx did not listen within 5 s: " + p.errorLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("nginx error log:\n%s", p.errorLog())
		}
	})
	return p, nil
}

func readFile(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}
