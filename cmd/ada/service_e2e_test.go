package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

func TestAPIKeyGuardsEverythingButHealthz(t *testing.T) {
	const key = "s3cret-key-value"
	ada := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": key}))
	if st := ada.call("GET", "/v1/healthz", nil, nil); st != 200 {
		t.Fatalf("healthz needs no key: %d", st)
	}
	var d detail
	if st := ada.call("GET", "/v1/info", nil, &d); st != 401 || !strings.Contains(d.Detail, "API key") {
		t.Fatalf("no key: %d %q", st, d.Detail)
	}
	req, _ := http.NewRequest("GET", ada.URL+"/v1/info", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("with the key: %v %v", resp, err)
	}
	resp.Body.Close()
	var health map[string]any
	ada.call("GET", "/v1/healthz", nil, &health)
	if strings.Contains(ada.logs.String(), key) || strings.Contains(strings.ToLower(toJSON(health)), key) {
		t.Fatal("the API key leaked into the logs or the health response")
	}
}

func TestHealthAndInfoDescribeTheService(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", nil)
	var h struct {
		OK      bool           `json:"ok"`
		Service string         `json:"service"`
		Python  string         `json:"python"`
		Config  map[string]any `json:"config"`
		Persona struct{ Loaded bool }
		Chroma  struct {
			OK      bool   `json:"ok"`
			Backend string `json:"backend"`
		} `json:"chroma"`
		LLM struct {
			OK    bool   `json:"ok"`
			Model string `json:"model"`
		} `json:"llm"`
	}
	if st := ada.call("GET", "/v1/healthz", nil, &h); st != 200 {
		t.Fatal(st)
	}
	if !h.OK || h.Service != "ada" || !strings.HasPrefix(h.Python, "go") || !h.Persona.Loaded || !h.Chroma.OK || !h.LLM.OK || h.LLM.Model != llmtest.ModelName {
		t.Fatalf("health %+v", h)
	}
	if _, ok := h.Config["RAG_TURN_TOP_K"]; !ok {
		t.Fatal("health config lacks the settings")
	}
	var info struct {
		Version   string          `json:"version"`
		Features  map[string]bool `json:"features"`
		Endpoints []struct{ Method, Path string }
		Docs      string `json:"documentation"`
	}
	ada.call("GET", "/v1/info", nil, &info)
	if info.Docs != "/docs" || !info.Features["streaming"] || !info.Features["rag"] || len(info.Endpoints) < 14 {
		t.Fatalf("info %+v", info)
	}
	down := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": "http://127.0.0.1:1"}))
	ada.call("GET", "/v1/healthz", nil, &h)
	if st := down.call("GET", "/v1/healthz", nil, &h); st != 200 || h.LLM.OK {
		t.Fatalf("a down LLM is reported but not critical: %d %+v", st, h.LLM)
	}
}

func TestMethodNotAllowedListsTheAllowedMethods(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	req, _ := http.NewRequest("DELETE", ada.URL+"/v1/conversations/recent", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" || resp.Header.Get("X-Request-ID") == "" {
		t.Fatalf("%d Allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestOneLogLinePerRequestCarriesItsID: the X-Request-ID of a response names
// exactly one request log line.
func TestOneLogLinePerRequestCarriesItsID(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	resp, err := http.Get(ada.URL + "/v1/memory?limit=0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-ID")
	if len(id) < 8 {
		t.Fatalf("X-Request-ID %q", id)
	}
	var lines []string
	for _, l := range strings.Split(ada.logs.String(), "\n") {
		if strings.Contains(l, "request_id="+id) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "msg=request") || !strings.Contains(lines[0], "status=400") || !strings.Contains(lines[0], "path=/v1/memory") {
		t.Fatalf("log lines for %s: %q", id, lines)
	}
}
