package apiserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ada-chat/ada/core"
)

// A JSON route refuses a body that is not declared JSON with 415, in the
// route's error shape, before its handler runs: a web page's text/plain
// POST (which browsers send cross-site without asking) writes nothing.
// application/json with a charset is fine.
func TestJSONRoutesRefuseOtherContentTypes(t *testing.T) {
	var created atomic.Int32
	svc := &fakeService{createMemory: func(in core.MemoryInput) (core.Memory, error) {
		created.Add(1)
		return core.Memory{ID: "doc-1", Text: in.Text}, nil
	}}
	url := serveFake(t, svc)
	post := func(path, contentType string) (int, []byte) {
		req, _ := http.NewRequest("POST", url+path, strings.NewReader(`{"text":"The door code is 4711.","prompt":"hi","model":"ada","messages":[{"role":"user","content":"hi"}]}`))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	for _, path := range []string{"/v1/memory", "/v1/chat", "/v1/chat/stream", "/mcp"} {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "", "application/jsonx", "application/ld+json"} {
			status, body := post(path, ct)
			var e struct{ Detail string }
			if status != http.StatusUnsupportedMediaType || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Detail, "application/json") {
				t.Errorf("POST %s with Content-Type %q: %d %s; want 415 naming application/json", path, ct, status, body)
			}
		}
	}
	status, body := post("/v1/chat/completions", "text/plain")
	var oe struct {
		Error struct{ Message, Type string }
	}
	if status != http.StatusUnsupportedMediaType || json.Unmarshal(body, &oe) != nil || !strings.Contains(oe.Error.Message, "application/json") || oe.Error.Type != "invalid_request_error" {
		t.Errorf("POST /v1/chat/completions with text/plain: %d %s; want 415 in OpenAI's error shape", status, body)
	}
	if n := created.Load(); n != 0 {
		t.Fatalf("%d memories were created from bodies that are not declared JSON", n)
	}
	if status, body := post("/v1/memory", "Application/JSON; charset=utf-8"); status != http.StatusCreated {
		t.Errorf("POST /v1/memory with application/json and a charset: %d %s", status, body)
	}
}

// Every route that takes a body is a JSON route, but the OCR upload
// (multipart): a new route cannot forget the check.
func TestEveryBodyRouteIsJSON(t *testing.T) {
	srv := New(&fakeService{}, Deps{}, testConfig(t, nil), nil)
	for _, r := range srv.routes {
		takesBody := r.method == http.MethodPost || r.method == http.MethodPatch || r.method == http.MethodPut
		if want := takesBody && r.pattern != "/v1/ocr/extract"; r.json != want {
			t.Errorf("%s %s: json is %v, want %v", r.method, r.pattern, r.json, want)
		}
	}
}
