package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestChatRequestRoundTrip: what the client sends is what the server reads.
func TestChatRequestRoundTrip(t *testing.T) {
	ts := time.Date(2026, 11, 24, 3, 4, 5, 6000, time.UTC)
	for name, req := range map[string]core.ChatRequest{
		"minimal":  {Prompt: "hi", Store: true},
		"no store": {Prompt: "hi", Store: false},
		"full": {Prompt: "hello", ConversationID: core.NewConversationID(), IncludeThinking: true, Entity: "!room:x",
			SaveMemory: true, MemoryText: "m", MemoryImportance: new(5), TurnsK: new(0), FAQK: new(2), MemoryK: new(3),
			RecallK: new(4), AutoMemory: new(false), UserTimestamp: ts, Store: true, OCRContext: &core.OCRResult{Text: "ocr"},
			ContextMessages: []core.ContextMessage{{Sender: "alice", Text: "hey", Timestamp: ts}}, RoomID: "!room:x",
			ReplyChain: []core.ContextMessage{{Sender: "bob", Text: "older", Timestamp: ts}}, Model: "big-model", Instructions: "Be terse.",
			Speaker: &core.Speaker{Name: "Alice", UserID: "@alice:x"}, MCPTools: []string{"everything.echo", "wiki"},
			Location: mustLoad(t, "Europe/Berlin")},
		"all tools": {Prompt: "hi", Store: true, MCPTools: []string{core.AllTools}},
	} {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(ChatRequestOf(req))
			if err != nil {
				t.Fatal(err)
			}
			var b ChatRequest
			if err := Decode(data, &b); err != nil {
				t.Fatal(err)
			}
			got, err := b.ToCore()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, req) {
				t.Errorf("sent  %+v\nread  %+v\nwire  %s", req, got, data)
			}
		})
	}
}

// TestMemoryCreateRoundTrip: the same for a memory.
func TestMemoryCreateRoundTrip(t *testing.T) {
	exp := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	in := core.MemoryInput{Text: "t", Importance: new(4), MemoryType: "fact", Scope: "entity:x", Entity: "x", Tags: []string{"a"},
		ConversationID: core.NewConversationID(), ExpiresAt: &exp, RoomID: "!r:x", UserID: "@u:x", Source: core.SourceChat}
	data, err := json.Marshal(MemoryCreateOf(in))
	if err != nil {
		t.Fatal(err)
	}
	var b MemoryCreate
	if err := Decode(data, &b); err != nil {
		t.Fatal(err)
	}
	got, err := b.ToInput()
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Errorf("sent %+v\nread %+v (%v)", in, got, err)
	}
}

// TestErrorKindsRoundTrip: every kind survives the status of a {"detail"}
// answer (but internal, which a client reads as upstream: both are 500)
// and the name of an SSE error event.
func TestErrorKindsRoundTrip(t *testing.T) {
	for _, k := range kinds {
		if got := kindNamed(kindName(k.kind)); got != k.kind {
			t.Errorf("kind %d by name: %d", k.kind, got)
		}
		want := k.kind
		if want == core.KindInternal {
			want = core.KindUpstream
		}
		if got := KindOfStatus(Status(k.kind)); got != want {
			t.Errorf("kind %d by status %d: %d", k.kind, Status(k.kind), got)
		}
	}
	ev, err := DecodeEvent([]byte(`{"type":"error","error":"x"}`))
	if err != nil || ev.Kind != core.KindUpstream {
		t.Errorf("an error event without a kind (an older server) should read as upstream: %+v %v", ev, err)
	}
}

// TestMemoryQueryRoundTrip: the parameters the client sends for a memory
// query are read back as the same query, and the server's two documented
// forms keep their default limits.
func TestMemoryQueryRoundTrip(t *testing.T) {
	q := core.MemoryQuery{Text: "tea", Entity: "alice", Scope: "global", ConversationID: "c1", Tag: "drinks", Cursor: "abc", Limit: 7}
	v := MemoryQueryValues(q)
	got, err := ParseMemoryQuery(v.Get)
	if err != nil || !reflect.DeepEqual(got, q) {
		t.Fatalf("round trip of %+v: %+v, %v", q, got, err)
	}
	for _, tc := range []struct {
		params map[string]string
		want   core.MemoryQuery
	}{
		{nil, core.MemoryQuery{Limit: core.MaxMemoryLimit}},
		{map[string]string{"query": "tea"}, core.MemoryQuery{Text: "tea", Limit: 10}},
		{map[string]string{"search": "tea", "query": "coffee"}, core.MemoryQuery{Text: "tea", Limit: core.MaxMemoryLimit}},
		{map[string]string{"query": "tea", "limit": "3"}, core.MemoryQuery{Text: "tea", Limit: 3}},
	} {
		got, err := ParseMemoryQuery(func(name string) string { return tc.params[name] })
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %+v, %v; want %+v", tc.params, got, err, tc.want)
		}
	}
	if _, err := ParseMemoryQuery(func(name string) string { return map[string]string{"limit": "ten"}[name] }); core.KindOf(err) != core.KindInvalid {
		t.Errorf("limit=ten: %v, want an invalid-input error", err)
	}
}

// TestMemoryPageRoundTrip: the page the server answers is the page the
// client reads; the end of a listing is null on the wire.
func TestMemoryPageRoundTrip(t *testing.T) {
	for _, p := range []core.MemoryPageResult{
		{Items: []core.Memory{{ID: "m1"}}, Next: "cur"},
		{Items: []core.Memory{}},
	} {
		data, err := json.Marshal(MemoryPageOf(p))
		if err != nil {
			t.Fatal(err)
		}
		if p.Next == "" && !strings.Contains(string(data), `"next":null`) {
			t.Errorf("the end of a listing: %s, want next null", data)
		}
		var back MemoryPage
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		got := back.ToCore()
		if len(got.Items) != len(p.Items) || (len(p.Items) > 0 && got.Items[0].ID != p.Items[0].ID) || got.Next != p.Next || back.Count != len(p.Items) {
			t.Errorf("%+v: %s read back as %+v", p, data, got)
		}
	}
}

// TestChatRequestTools: an API body without tools may use every MCP tool;
// [] none; a bad entry is refused naming the field.
func TestChatRequestTools(t *testing.T) {
	for body, want := range map[string][]string{
		`{"prompt": "x"}`:                             {core.AllTools},
		`{"prompt": "x", "tools": []}`:                nil,
		`{"prompt": "x", "tools": [" wiki ", "a.b"]}`: {"wiki", "a.b"},
	} {
		var b ChatRequest
		if err := Decode([]byte(body), &b); err != nil {
			t.Fatal(err)
		}
		got, err := b.ToCore()
		if err != nil || !reflect.DeepEqual(got.MCPTools, want) {
			t.Errorf("%s: %v, %v; want %v", body, got.MCPTools, err, want)
		}
	}
	var b ChatRequest
	if err := Decode([]byte(`{"prompt": "x", "tools": [""]}`), &b); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ToCore(); err == nil || !strings.HasPrefix(err.Error(), "tools:") {
		t.Errorf("an empty entry: %v", err)
	}
}

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestChatRequestTimeZone: a time zone that is no IANA name is refused,
// naming the field.
func TestChatRequestTimeZone(t *testing.T) {
	for _, tz := range []string{"Mars/Olympus", "Local", "../../etc/passwd"} {
		b := ChatRequest{Prompt: new("hi"), TimeZone: &tz}
		if _, err := b.ToCore(); core.KindOf(err) != core.KindInvalid || !strings.Contains(err.Error(), "timezone") {
			t.Errorf("%q: %v, want invalid timezone", tz, err)
		}
	}
}

// TestChatRequestTimeOutsideTheCalendar: a user_timestamp Ada could not
// store (its year in UTC, or in the time zone given, outside 1..9999) is
// refused naming the field; the years' edges themselves are taken.
func TestChatRequestTimeOutsideTheCalendar(t *testing.T) {
	for _, c := range []struct{ ts, tz string }{
		{"0000-01-01T00:00:00+01:00", ""},
		{"9999-12-31T23:00:00-05:00", ""},
		{"9999-12-31T23:00:00Z", "Pacific/Kiritimati"},
		{"0001-01-01T03:00:00Z", "America/New_York"}, // the year 0 there
	} {
		b := ChatRequest{Prompt: new("hi"), UserTimestamp: &c.ts, TimeZone: &c.tz}
		if _, err := b.ToCore(); core.KindOf(err) != core.KindInvalid || !strings.Contains(err.Error(), "user_timestamp") {
			t.Errorf("%s in %q: %v, want invalid user_timestamp", c.ts, c.tz, err)
		}
	}
	for _, ts := range []string{"0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"} {
		b := ChatRequest{Prompt: new("hi"), UserTimestamp: &ts}
		if _, err := b.ToCore(); err != nil {
			t.Errorf("%s: %v", ts, err)
		}
	}
	for _, ts := range []string{"0000-12-31T23:00:00Z", "9999-12-31T23:00:00-05:00"} {
		b := MemoryCreate{Text: new("tea"), ExpiresAt: &ts}
		if _, err := b.ToInput(); core.KindOf(err) != core.KindInvalid || !strings.Contains(err.Error(), "expires_at") {
			t.Errorf("expires_at %s: %v, want invalid", ts, err)
		}
	}
}
