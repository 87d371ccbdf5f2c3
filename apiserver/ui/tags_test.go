package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
)

// TestEditRefusesUnboundedTags: the page's edit form applies core's tag
// bounds (issue 36): more than 20 tags, or one over 64 characters, is a
// 400 naming the field, and the memory keeps its tags.
func TestEditRefusesUnboundedTags(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	m := s.remember(core.MemoryInput{Text: "Sam prefers tea over coffee", Tags: []string{"drinks"}})
	b := s.browser()
	b.login(testKey)
	csrf := b.csrf()
	many := make([]string, core.MaxTags+1)
	for i := range many {
		many[i] = "t" + strings.Repeat("x", i)
	}
	for tags, mention := range map[string]string{
		strings.Join(many, ", "):                             "tags: at most 20 tags",
		"drinks, " + strings.Repeat("t", core.MaxTagChars+1): "tags[1]: must be at most 64 characters",
	} {
		form := url.Values{"csrf": {csrf}, "text": {m.Text}, "importance": {"3"}, "tags": {tags}}
		want(t, b.post("/ui/memories/"+m.ID, form), http.StatusBadRequest, mention)
	}
	want(t, b.get("/ui/memories/"+m.ID), http.StatusOK, "drinks")
}
