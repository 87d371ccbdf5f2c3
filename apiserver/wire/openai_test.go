package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCompletionRequestToCore(t *testing.T) {
	decode := func(body string) (CompletionRequest, error) {
		var b CompletionRequest
		return b, Decode([]byte(body), &b)
	}
	b, err := decode(`{"model":"ada","temperature":0.5,"stop":"END","max_completion_tokens":9,"max_tokens":99,
		"messages":[{"role":"system","content":"Be brief."},{"role":"developer","content":"Use metric units."},
		{"role":"user","content":"hi"},{"role":"assistant","content":null},{"role":"tool","content":"x"},
		{"role":"assistant","content":"hello"},{"role":"user","content":[{"type":"text","text":"how"},{"type":"image_url"},{"type":"text","text":"tall?"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	req, err := b.ToCore(" sam ")
	if err != nil {
		t.Fatal(err)
	}
	if req.Prompt != "how\ntall?" || req.Entity != "sam" || req.Instructions != "Be brief.\n\nUse metric units." || !req.Store {
		t.Errorf("request %+v", req)
	}
	if h, _ := json.Marshal(req.History); string(h) != `[{"role":"user","content":"hi"},{"role":"assistant","content":""},{"role":"assistant","content":"hello"}]` {
		t.Errorf("history %s", h)
	}
	if o := req.Options; *o.Temperature != 0.5 || *o.MaxTokens != 9 || len(o.Stop) != 1 || o.Stop[0] != "END" {
		t.Errorf("options %+v", o)
	}

	for body, want := range map[string]string{
		`{"messages":[{"role":"user","content":"hi"}]}`:                                                "model: is required",
		`{"model":"ada","messages":[]}`:                                                                "messages: must hold at least one",
		`{"model":"ada","messages":[{"role":"assistant","content":"hi"}]}`:                             "the last message must be the user's",
		`{"model":"ada","messages":[{"role":"wizard","content":"hi"},{"role":"user","content":"hi"}]}`: "messages[0].role: must be",
		`{"model":"ada","messages":[{"role":"tool","content":"12"}]}`:                                  "the last message must be the user's, or a tool's result",
		`{"model":"ada","messages":[{"role":"user","content":5}]}`:                                     "messages[0].content: must be a string or an array",
		`{"model":"ada","n":2,"messages":[{"role":"user","content":"hi"}]}`:                            "n: Ada gives one answer",
		`{"model":"ada","temperature":3,"messages":[{"role":"user","content":"hi"}]}`:                  "temperature: must be 0..2",
		`{"model":"ada","top_p":-1,"messages":[{"role":"user","content":"hi"}]}`:                       "top_p: must be 0..1",
		`{"model":"ada","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`:                   "max_tokens: must be at least 1",
		`{"model":"ada","stop":["a","b","c","d","e"],"messages":[{"role":"user","content":"hi"}]}`:     "stop: must be a string or an array of at most 4",
	} {
		b, err := decode(body)
		if err == nil {
			_, err = b.ToCore("")
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// The model's calls of the client's tools and their results follow the
// prompt; older rounds' calls are not history.
func TestCompletionRequestWithTools(t *testing.T) {
	var b CompletionRequest
	err := Decode([]byte(`{"model":"ada","tools":[{"type":"function","function":{"name":"w"}}],"tool_choice":"auto","messages":[
		{"role":"user","content":"old"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"w","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"a","content":"old result"},{"role":"assistant","content":"old answer"},
		{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"w","arguments":"{\"c\":1}"}}]},
		{"role":"tool","tool_call_id":"b","content":"sunny"}]}`), &b)
	if err != nil {
		t.Fatal(err)
	}
	req, err := b.ToCore("")
	if err != nil {
		t.Fatal(err)
	}
	if req.Prompt != "weather?" || string(req.ToolChoice) != `"auto"` || !strings.Contains(string(req.Tools), `"w"`) {
		t.Errorf("request %+v", req)
	}
	if h, _ := json.Marshal(req.History); string(h) != `[{"role":"user","content":"old"},{"role":"assistant","content":""},{"role":"assistant","content":"old answer"}]` {
		t.Errorf("history %s", h)
	}
	if tt, _ := json.Marshal(req.ToolTurns); string(tt) != `[{"role":"assistant","content":"","tool_calls":[{"id":"b","type":"function","function":{"name":"w","arguments":"{\"c\":1}"}}]},{"role":"tool","content":"sunny","tool_call_id":"b"}]` {
		t.Errorf("tool turns %s", tt)
	}
}

func TestOpening(t *testing.T) {
	var b CompletionRequest
	if err := Decode([]byte(`{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"hi"}]},
		{"role":"assistant","content":"hello"},{"role":"user","content":"how are you?"}]}`), &b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Opening(), "|"); got != "system|Be brief.|user|hi" {
		t.Errorf("opening %q, want the instructions and the first user message", got)
	}
}
