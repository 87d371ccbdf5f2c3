package bottest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Element is a room member played by Element's own Matrix stack:
// tools/elementclient, matrix-js-sdk with its Rust crypto, run by node. It
// reports what it receives, as it decrypted it, and runs a few commands.
// Its failures go to the test it was started or bound (For) in.
type Element struct {
	t testing.TB
	*elementProcess
}

type elementProcess struct {
	UserID id.UserID
	stdin  io.WriteCloser
	stderr *LogBuffer

	mu      sync.Mutex
	events  []ElementEvent // every report, in order: an event again at each decryption or redaction
	answers map[int]elementAnswer
	exited  bool
	nextID  int
	changed chan struct{}
}

// ElementEvent is a timeline event as the Element client reported it.
type ElementEvent struct {
	Room      id.RoomID  `json:"room"`
	ID        id.EventID `json:"id"`
	Type      string     `json:"type"`
	Sender    id.UserID  `json:"sender"`
	Encrypted bool       `json:"encrypted"`
	// Failure is why it could not be decrypted (empty when it could).
	Failure  string     `json:"failure"`
	Redacted bool       `json:"redacted"`
	Redacts  id.EventID `json:"redacts"`
	// OwnContent is the event's own (decrypted) content, Content what the
	// app shows for it: the latest edit applied, nothing once redacted.
	OwnContent map[string]any `json:"own_content"`
	Content    map[string]any `json:"content"`
}

// Message is the event's own content read as a message (or reaction).
func (e ElementEvent) Message() *event.MessageEventContent {
	var c event.MessageEventContent
	raw, _ := json.Marshal(e.OwnContent)
	_ = json.Unmarshal(raw, &c)
	return &c
}

func (e ElementEvent) String() string {
	return fmt.Sprintf("%s %s from %s (failure %q, redacted %v): %v", e.Type, e.ID, e.Sender, e.Failure, e.Redacted, e.OwnContent)
}

type elementAnswer struct {
	raw json.RawMessage
	err string
}

// readyAnswer is where the client's "ready" is kept among the answers.
const readyAnswer = -1

type elementLine struct {
	Kind  string `json:"kind"`
	Cmd   *int   `json:"cmd"`
	Error string `json:"error"`
}

// StartElement registers localpart and runs the Element client logged in
// as it, until t ends. Without node or the client's packages (make
// node-deps) a local run skips, a CI run fails.
func StartElement(t testing.TB, hs *Homeserver, localpart string) *Element {
	t.Helper()
	node, dir := findElementClient(t)
	acct := RegisterAccount(t, hs, localpart)
	cmd := exec.Command(node, "client.mjs", hs.URL(), acct.UserID.String(), acct.Password)
	cmd.Dir = dir
	e := &Element{t: t, elementProcess: &elementProcess{UserID: acct.UserID, stderr: &LogBuffer{},
		answers: map[int]elementAnswer{}, changed: make(chan struct{})}}
	cmd.Stderr = e.stderr
	var err error
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("element client: %v", err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		e.read(stdout)
	}()
	t.Cleanup(func() {
		_ = e.stdin.Close() // the client exits when its input ends
		exited := make(chan error, 1)
		go func() { <-readDone; exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("element client %s stderr (tail):\n%s", localpart, e.stderr.Tail(40))
		}
	})
	// Starting takes a few seconds (the crypto's WebAssembly, a first sync,
	// the device's keys): on a loaded machine, more.
	if ready, ok := e.waitAnswer("ready", readyAnswer, 60*time.Second); !ok || ready.err != "" {
		t.FailNow()
	}
	return e
}

// For is the same client reporting its failures to t (a subtest).
func (e *Element) For(t testing.TB) *Element { return &Element{t: t, elementProcess: e.elementProcess} }

// findElementClient returns node and tools/elementclient with its packages
// installed, or skips without them (fails under CI=true).
func findElementClient(t testing.TB) (node, dir string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "tools", "elementclient")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "matrix-js-sdk", "package.json"))
	}
	if err == nil {
		return node, dir
	}
	msg := "node or the Element client is missing (`make node-deps` runs npm ci in tools/elementclient): " + err.Error()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// read records the client's lines; the test's Logf and Errorf are safe
// from this goroutine.
func (e *Element) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var head elementLine
		if err := json.Unmarshal(line, &head); err != nil {
			e.t.Logf("element client: not JSON: %s", line)
			continue
		}
		e.mu.Lock()
		switch {
		case head.Kind == "event":
			var ev ElementEvent
			if err := json.Unmarshal(line, &ev); err != nil {
				e.t.Errorf("element client: bad event %s: %v", line, err)
			} else {
				e.events = append(e.events, ev)
			}
		case head.Cmd != nil:
			e.answers[*head.Cmd] = elementAnswer{raw: append(json.RawMessage(nil), line...), err: head.Error}
		case head.Kind == "ready":
			e.answers[readyAnswer] = elementAnswer{}
		default: // an error of no command: the client could not start
			e.t.Errorf("element client: %s", line)
			if _, started := e.answers[readyAnswer]; !started {
				e.answers[readyAnswer] = elementAnswer{err: head.Error}
			}
		}
		close(e.changed)
		e.changed = make(chan struct{})
		e.mu.Unlock()
	}
	e.mu.Lock()
	e.exited = true
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// waitFor waits until cond (called with e.mu held) holds, the client exits
// or the timeout passes; it reports whether cond held.
func (e *Element) waitFor(what string, timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		e.mu.Lock()
		ok, exited, changed := cond(), e.exited, e.changed
		e.mu.Unlock()
		if ok {
			return true
		}
		if exited {
			e.t.Errorf("element client exited while waiting for %s", what)
			return false
		}
		select {
		case <-changed:
		case <-deadline:
			e.t.Errorf("element client %s: timed out waiting for %s", e.UserID, what)
			return false
		}
	}
}

// waitAnswer waits for the answer to command n.
func (e *Element) waitAnswer(what string, n int, timeout time.Duration) (a elementAnswer, ok bool) {
	ok = e.waitFor(what, timeout, func() bool {
		var found bool
		a, found = e.answers[n]
		return found
	})
	return a, ok
}

// do runs a command and decodes its answer into out (if not nil).
func (e *Element) do(op string, args map[string]any, out any) {
	e.t.Helper()
	e.mu.Lock()
	e.nextID++
	n := e.nextID
	e.mu.Unlock()
	cmd := map[string]any{"cmd": n, "op": op}
	for k, v := range args {
		cmd[k] = v
	}
	line, _ := json.Marshal(cmd)
	if _, err := e.stdin.Write(append(line, '\n')); err != nil {
		e.t.Fatalf("element client %s: %v", op, err)
	}
	a, ok := e.waitAnswer(op, n, Timeout)
	if !ok {
		e.t.FailNow()
	}
	if a.err != "" {
		e.t.Fatalf("element client %s %v: %s", op, args, a.err)
	}
	if out != nil {
		if err := json.Unmarshal(a.raw, out); err != nil {
			e.t.Fatalf("element client %s: %v", op, err)
		}
	}
}

func (e *Element) Join(room id.RoomID) {
	e.t.Helper()
	e.do("join", map[string]any{"room": room}, nil)
}

// CreateRoom creates an encrypted room inviting users; direct marks it a DM.
func (e *Element) CreateRoom(name string, direct bool, invite ...id.UserID) id.RoomID {
	e.t.Helper()
	var out struct {
		RoomID id.RoomID `json:"room_id"`
	}
	e.do("create", map[string]any{"name": name, "direct": direct, "encrypted": true, "invite": invite}, &out)
	return out.RoomID
}

// Say sends a text message (encrypted by the client in encrypted rooms).
func (e *Element) Say(room id.RoomID, text string) id.EventID {
	e.t.Helper()
	var out struct {
		EventID id.EventID `json:"event_id"`
	}
	e.do("send", map[string]any{"room": room, "body": text}, &out)
	return out.EventID
}

func (e *Element) Redact(room id.RoomID, target id.EventID) id.EventID {
	e.t.Helper()
	var out struct {
		EventID id.EventID `json:"event_id"`
	}
	e.do("redact", map[string]any{"room": room, "event": target}, &out)
	return out.EventID
}

// Timeline is the room's live timeline as the app would show it now.
func (e *Element) Timeline(room id.RoomID) []ElementEvent {
	e.t.Helper()
	var out struct {
		Events []ElementEvent `json:"events"`
	}
	e.do("timeline", map[string]any{"room": room}, &out)
	return out.Events
}

// Wait returns the first report matching pred, failing the test after Timeout.
func (e *Element) Wait(what string, pred func(ElementEvent) bool) ElementEvent {
	e.t.Helper()
	var found ElementEvent
	if !e.waitFor(what, Timeout, func() bool {
		for _, ev := range e.events {
			if pred(ev) {
				found = ev
				return true
			}
		}
		return false
	}) {
		e.t.FailNow()
	}
	return found
}

// Find returns the reports matching pred, in order.
func (e *Element) Find(pred func(ElementEvent) bool) []ElementEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []ElementEvent
	for _, ev := range e.events {
		if pred(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// Seen returns the distinct events of which some report matches pred,
// each as first matched, in that order (a report after a redaction has no
// content left to match).
func (e *Element) Seen(pred func(ElementEvent) bool) []ElementEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[id.EventID]bool{}
	var out []ElementEvent
	for _, ev := range e.events {
		if !seen[ev.ID] && pred(ev) {
			seen[ev.ID] = true
			out = append(out, ev)
		}
	}
	return out
}
