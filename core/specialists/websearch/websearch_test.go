package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// fakeSearXNG serves /searx/search like SearXNG with format=json, answering
// with handler. The /searx prefix checks that a base path is kept.
func fakeSearXNG(t *testing.T, handler http.HandlerFunc) *Specialist {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /searx/search", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format must be json", http.StatusBadRequest)
			return
		}
		handler(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s, err := New(Options{URL: srv.URL + "/searx/", HTTPClient: srv.Client(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// results answers with n results numbered from 1.
func results(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var rs []map[string]string
		for i := 1; i <= n; i++ {
			rs = append(rs, map[string]string{
				"title":   fmt.Sprintf("Result %d", i),
				"url":     fmt.Sprintf("https://example.org/%d", i),
				"content": fmt.Sprintf("Snippet %d about %s.", i, r.URL.Query().Get("q")),
				"engine":  "duckduckgo",
			})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": rs})
	}
}

func run(t *testing.T, s *Specialist, args string) (string, error) {
	t.Helper()
	return s.Run(context.Background(), core.SpecialistCall{Args: json.RawMessage(args)})
}

func TestRunFormatsResults(t *testing.T) {
	s := fakeSearXNG(t, func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query().Get("q"); q != "go 1.26 release" {
			t.Errorf("q = %q", q)
		}
		fmt.Fprint(w, `{"results": [
			{"title": "Go 1.26 Release Notes", "url": "https://go.dev/doc/go1.26", "content": "Go 1.26 is\n  a major   release."},
			{"title": "", "url": "https://example.org/x", "content": ""},
			{"title": "no url, skipped", "url": "", "content": "x"}
		]}`)
	})
	got, err := run(t, s, `{"query": "  go 1.26 release "}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `Web search results for "go 1.26 release" (2 results):

1. Go 1.26 Release Notes
   URL: https://go.dev/doc/go1.26
   Go 1.26 is a major release.

2. (untitled)
   URL: https://example.org/x
   (no snippet)
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunNumResults(t *testing.T) {
	s := fakeSearXNG(t, results(12))
	for _, tc := range []struct {
		args string
		want int
	}{
		{`{"query": "x"}`, 5},
		{`{"query": "x", "num_results": 2}`, 2},
		{`{"query": "x", "num_results": 3.0}`, 3},
		{`{"query": "x", "num_results": 10}`, 10},
	} {
		got, err := run(t, s, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if n := strings.Count(got, "URL: "); n != tc.want {
			t.Errorf("%s: %d results, want %d", tc.args, n, tc.want)
		}
		if !strings.Contains(got, fmt.Sprintf("%d. Result %d\n", tc.want, tc.want)) {
			t.Errorf("%s: entry %d missing:\n%s", tc.args, tc.want, got)
		}
	}
}

func TestRunFewerResultsThanAsked(t *testing.T) {
	got, err := run(t, fakeSearXNG(t, results(1)), `{"query": "x", "num_results": 8}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, `Web search results for "x" (1 result):`) {
		t.Errorf("header: %q", got)
	}
}

func TestRunInvalidArgs(t *testing.T) {
	s := fakeSearXNG(t, func(w http.ResponseWriter, r *http.Request) {
		t.Error("the search service must not be called for invalid arguments")
	})
	for _, args := range []string{
		``, `{}`, `{"query": "   "}`, `{"query": 3}`, `[]`,
		`{"query": "x", "num_results": 0}`,
		`{"query": "x", "num_results": 11}`,
		`{"query": "x", "num_results": 2.5}`,
		`{"query": "x", "num_results": "3"}`,
		`{"query": "` + strings.Repeat("a", 501) + `"}`,
	} {
		_, err := run(t, s, args)
		if core.KindOf(err) != core.KindInvalid {
			t.Errorf("%.40s: got %v, want a KindInvalid error", args, err)
		}
	}
}

func TestRunServiceErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		kind    core.ErrorKind
		want    string
	}{
		{"rate limited", status(http.StatusTooManyRequests), core.KindUpstream,
			"web search failed: the search service is rate-limiting requests (HTTP 429)"},
		{"server error", status(http.StatusInternalServerError), core.KindUpstream,
			"web search failed: the search service had an internal error (HTTP 500)"},
		{"json format disabled", status(http.StatusForbidden), core.KindUpstream,
			"web search failed: the search service refused the request (is its JSON format enabled?) (HTTP 403)"},
		{"malformed JSON", body(`<html>not json`), core.KindUpstream,
			"web search failed: the search service sent a malformed answer (not SearXNG JSON)"},
		{"no results", body(`{"results": [], "unresponsive_engines": [["google", "timeout"]]}`), core.KindNotFound,
			`web search found no results; engines that did not answer: google`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, fakeSearXNG(t, tc.handler), `{"query": "x"}`)
			if core.KindOf(err) != tc.kind || core.SafeMessage(err) != tc.want {
				t.Errorf("got kind %v, %q; want kind %v, %q", core.KindOf(err), core.SafeMessage(err), tc.kind, tc.want)
			}
		})
	}
}

func TestRunTimeout(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

	t.Run("own timeout", func(t *testing.T) {
		s := fakeSearXNG(t, hang)
		s.timeout = 50 * time.Millisecond
		start := time.Now()
		_, err := run(t, s, `{"query": "x"}`)
		if want := "web search failed: the search service did not answer in time"; core.SafeMessage(err) != want {
			t.Errorf("got %v, want %q", err, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := fakeSearXNG(t, hang).Run(ctx, core.SpecialistCall{Args: json.RawMessage(`{"query": "x"}`)})
		if core.KindOf(err) != core.KindUpstream || !strings.Contains(err.Error(), "did not answer in time") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("caller cancels", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := fakeSearXNG(t, hang).Run(ctx, core.SpecialistCall{Args: json.RawMessage(`{"query": "x"}`)})
		if core.KindOf(err) != core.KindCanceled {
			t.Errorf("got %v, want KindCanceled", err)
		}
	})
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there any more
	s, err := New(Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(t, s, `{"query": "x"}`)
	if want := "web search failed: the search service could not be reached"; core.SafeMessage(err) != want {
		t.Errorf("got %v", err)
	}
}

func TestDisabledWithoutURL(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Info().Enabled {
		t.Error("enabled without a URL")
	}
	if _, err := run(t, s, `{"query": "x"}`); core.KindOf(err) != core.KindUnavailable {
		t.Errorf("got %v, want KindUnavailable", err)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"searxng:8080", "ftp://x", "http://", "://"} {
		if _, err := New(Options{URL: u}); core.KindOf(err) != core.KindInvalid {
			t.Errorf("%q: got %v", u, err)
		}
	}
}

func TestInfo(t *testing.T) {
	info := fakeSearXNG(t, results(1)).Info()
	if info.Name != "web_search" || info.Priority != core.PriorityHigh || !info.Enabled {
		t.Errorf("info = %+v", info)
	}
	if got := strings.Join(info.Tags, ","); got != "web,search,current-events,real-time" {
		t.Errorf("tags = %s", got)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(info.InputSchema, &schema); err != nil || schema.Type != "object" ||
		len(schema.Required) != 1 || len(schema.Properties) != 2 {
		t.Errorf("input schema %s: %v", info.InputSchema, err)
	}
	if !json.Valid(info.OutputSchema) {
		t.Errorf("output schema %s", info.OutputSchema)
	}
	if !strings.HasPrefix(info.Capability, "Q: ") || !strings.Contains(info.Capability, "\nA: ") {
		t.Errorf("capability is not question-and-answer text: %q", info.Capability)
	}
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", code) }
}

func body(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, s) }
}
