package ui

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// pageSize is how many memories one page lists.
const pageSize = 50

// memories lists memories newest first, a page at a time, or with q ranks
// them by the API's hybrid search and shows why each one matched.
func (p *page) memories(w http.ResponseWriter, r *http.Request, s session) {
	q := core.MemoryQuery{Text: strings.TrimSpace(r.URL.Query().Get("q")), Cursor: r.URL.Query().Get("cursor"), Limit: pageSize}
	res, err := p.svc.MemoryPage(r.Context(), q)
	if err != nil {
		p.failErr(w, r, s, err)
		return
	}
	v := view{Title: "Memories", CSRF: s.csrf, Query: q.Text, Items: res.Items, Notice: r.URL.Query().Get("notice")}
	if res.Next != "" {
		v.NextURL = "/ui/memories?" + url.Values{"cursor": {res.Next}}.Encode()
	}
	p.render(w, http.StatusOK, "memories", v)
}

func (p *page) memory(w http.ResponseWriter, r *http.Request, s session) {
	id := r.PathValue("id")
	m, err := p.svc.GetMemory(r.Context(), id)
	if err != nil {
		p.failErr(w, r, s, err)
		return
	}
	hist, err := p.svc.MemoryHistory(r.Context(), id)
	if err != nil {
		p.failErr(w, r, s, err)
		return
	}
	p.render(w, http.StatusOK, "memory", view{Title: "Memory", CSRF: s.csrf, Memory: &m, History: hist, Notice: r.URL.Query().Get("notice")})
}

// edit applies the form's text, importance, tags and expiry; only the
// fields that differ from the stored memory go into the patch, so saving an
// unchanged form writes nothing.
func (p *page) edit(w http.ResponseWriter, r *http.Request, s session) {
	id := r.PathValue("id")
	m, err := p.svc.GetMemory(r.Context(), id)
	if err != nil {
		p.failErr(w, r, s, err)
		return
	}
	patch, err := patchFromForm(r, m)
	if err != nil {
		p.failErr(w, r, s, err)
		return
	}
	notice := "Nothing changed."
	if patch != (core.MemoryPatch{}) {
		if _, err := p.svc.PatchMemory(r.Context(), id, patch); err != nil {
			p.failErr(w, r, s, err)
			return
		}
		notice = "Saved."
	}
	http.Redirect(w, r, "/ui/memories/"+url.PathEscape(id)+"?"+url.Values{"notice": {notice}}.Encode(), http.StatusSeeOther)
}

func patchFromForm(r *http.Request, m core.Memory) (core.MemoryPatch, error) {
	var patch core.MemoryPatch
	if text := strings.TrimSpace(r.PostFormValue("text")); text != m.Text {
		patch.Text = &text
	}
	imp, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("importance")))
	if err != nil {
		return patch, core.Errorf(core.KindInvalid, "importance: must be a whole number %d..%d", core.MinImportance, core.MaxImportance)
	}
	if imp != m.Meta.Importance {
		patch.Importance = &imp
	}
	tags := splitTags(r.PostFormValue("tags"))
	if !slices.Equal(tags, m.Meta.Tags) {
		patch.Tags = &tags
	}
	switch expiry := strings.TrimSpace(r.PostFormValue("expires")); {
	case expiry == "" && m.Meta.ExpiresAt != nil:
		patch.ClearExpiry = true
	case expiry != "" && expiry != dateOf(m.Meta.ExpiresAt):
		t, err := time.Parse(time.DateOnly, expiry)
		if err != nil {
			return patch, core.Errorf(core.KindInvalid, "expires: must be a date such as 2030-01-31, or empty for none")
		}
		patch.ExpiresAt = &t
	}
	return patch, nil
}

func splitTags(s string) []string {
	tags := []string{}
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

func dateOf(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// forget deletes the memory as DELETE /v1/memory/{id} does, with the
// form's reason kept in its history.
func (p *page) forget(w http.ResponseWriter, r *http.Request, s session) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" {
		reason = "forgotten on the memory page"
	}
	if err := p.svc.DeleteMemoryFor(r.Context(), r.PathValue("id"), reason); err != nil {
		p.failErr(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/ui/memories?"+url.Values{"notice": {"Forgotten."}}.Encode(), http.StatusSeeOther)
}

// failErr shows a core error with the status the API gives it, and only
// its client-safe message.
func (p *page) failErr(w http.ResponseWriter, r *http.Request, s session, err error) {
	status := wire.Status(core.KindOf(err))
	if status >= 500 {
		p.opt.Log.Error("memory page", "path", r.URL.Path, "err", err)
	}
	p.fail(w, r, s, status, core.SafeMessage(err))
}

func (p *page) fail(w http.ResponseWriter, _ *http.Request, s session, status int, msg string) {
	p.render(w, status, "error", view{Title: http.StatusText(status), CSRF: s.csrf, Error: msg})
}
