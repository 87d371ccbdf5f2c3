package websearch

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

// maxSnippetRunes keeps each snippet short: the results go into the prompt,
// and ten long snippets would crowd out the conversation.
const maxSnippetRunes = 300

// Run searches for call.Args' query and returns up to num_results numbered
// results. Errors are core.Errors: give the model core.SafeMessage(err).
func (s *Specialist) Run(ctx context.Context, call core.SpecialistCall) (string, error) {
	if s.endpoint == nil {
		return "", core.Errorf(core.KindUnavailable, "web search is not available: no search service is configured (WEBSEARCH_URL)")
	}
	a, err := parseArgs(call.Args)
	if err != nil {
		return "", err
	}
	resp, err := s.search(ctx, a.query)
	if err != nil {
		return "", err
	}
	var results []result
	for _, r := range resp.Results {
		if r.URL != "" {
			results = append(results, r)
		}
	}
	if len(results) == 0 {
		return "", noResults(resp)
	}
	return format(a.query, results[:min(a.n, len(results))]), nil
}

// format writes the header line and one numbered entry per result:
//
//	Web search results for "query" (2 results):
//
//	1. Title
//	   URL: https://example.org/
//	   Snippet.
func format(query string, results []result) string {
	var b strings.Builder
	noun := "results"
	if len(results) == 1 {
		noun = "result"
	}
	fmt.Fprintf(&b, "Web search results for %q (%d %s):\n", query, len(results), noun)
	for i, r := range results {
		title := oneLine(r.Title, 200)
		if title == "" {
			title = "(untitled)"
		}
		snippet := oneLine(r.Content, maxSnippetRunes)
		if snippet == "" {
			snippet = "(no snippet)"
		}
		fmt.Fprintf(&b, "\n%d. %s\n   URL: %s\n   %s\n", i+1, title, r.URL, snippet)
	}
	return b.String()
}

// oneLine collapses whitespace (snippets often hold newlines) and cuts s to
// limit runes, so that every entry keeps its three-line shape.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:limit-1])) + "…"
}
