package wire

import (
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// FuzzDecodeMemoryCreate feeds arbitrary bodies through the decoder and
// core's rules: they must return an error or an input, never panic.
func FuzzDecodeMemoryCreate(f *testing.F) {
	for _, seed := range []string{
		`{"text":"hello","importance":3}`,
		`{"content":"x","memory_type":"important","tags":["a"]}`,
		`{"text":"x","importance":"high"}`,
		`{"text":"x","importance":2.5e300}`,
		`{"text":null,"scope":"entity:"}`,
		`{"text":"x","expires_at":"2099-01-01T00:00:00+02:00"}`,
		`{"text":"x","expires_at":"soon"}`,
		`[]`, `null`, `{`, `"text"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req MemoryCreate
		if err := Decode(body, &req); err != nil {
			return
		}
		in, err := req.ToInput()
		if err == nil {
			err = core.CheckMemory(in, time.Now())
		}
		if err == nil && in.Text == "" {
			t.Fatalf("accepted a memory without text: %q", body)
		}
	})
}

// FuzzDecodeChatRequest does the same for the chat request: decoding and
// conversion either fail with an error or yield a request with a prompt.
func FuzzDecodeChatRequest(f *testing.F) {
	for _, seed := range []string{
		`{"prompt":"hi","conversation_id":"conv-6f1f6a52-8f0e-4b7a-9d7e-2b1d3c0ada00","turns_k":3}`,
		`{"message":"hi","include_thinking":true,"save_memory":true,"memory_importance":5}`,
		`{"prompt":"x","turns_k":1e99,"faq_k":-0,"memory_k":"3"}`,
		`{"prompt":"x","user_timestamp":"2026-01-02T15:04:05+02:00","ocr_context":{"text":"a"}}`,
		`{"prompt":"x","context_messages":[{"sender":"a","text":"b"}],"store":false}`,
		`{"prompt":"x","recall_k":20,"auto_memory":false}`,
		`{"prompt":"x","recall_k":-1,"auto_memory":"no"}`,
		`{"prompt":null}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b ChatRequest
		if err := Decode(body, &b); err != nil {
			return
		}
		req, err := b.ToCore()
		if err == nil {
			err = core.CheckChat(&req)
		}
		if err == nil && req.Prompt == "" {
			t.Fatalf("accepted a chat request without a prompt: %q", body)
		}
	})
}

// FuzzDecodeMemoryPatch: a patch body either fails or changes something;
// an accepted importance is always 1..5.
func FuzzDecodeMemoryPatch(f *testing.F) {
	for _, seed := range []string{
		`{"text":"new"}`, `{"importance":5,"tags":[]}`, `{"expires_at":null}`,
		`{"expires_at":"2099-01-01T00:00:00Z"}`, `{"expires_at":"x"}`, `{"expires_at":5}`,
		`{"importance":9}`, `{}`, `{"tags":null}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req MemoryPatch
		if err := Decode(body, &req); err != nil {
			return
		}
		p, err := req.ToPatch()
		if err == nil {
			err = core.CheckMemoryPatch(p, time.Now())
		}
		if err != nil {
			return
		}
		if p.Text == nil && p.Importance == nil && p.Tags == nil && p.ExpiresAt == nil && !p.ClearExpiry {
			t.Fatalf("accepted a patch that changes nothing: %q", body)
		}
		if p.Importance != nil && (*p.Importance < 1 || *p.Importance > 5) {
			t.Fatalf("accepted importance %d: %q", *p.Importance, body)
		}
	})
}
