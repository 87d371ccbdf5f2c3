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

// filters are the memory list's query: a search and its narrowing.
type filters struct {
	Q, Scope, Source, Importance, From, To string
}

func filtersOf(r *http.Request) filters {
	q := r.URL.Query()
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	return filters{Q: get("q"), Scope: get("scope"), Source: get("source"), Importance: get("importance"), From: get("from"), To: get("to")}
}

// values are the filters as a query string, for the next page's link.
func (f filters) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "scope": f.Scope, "source": f.Source, "importance": f.Importance, "from": f.From, "to": f.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// browse turns the filters into core's query; dates are whole UTC days,
// "to" included.
func (f filters) browse(v viewer, cursor string) (core.Browse, error) {
	b := core.Browse{Text: f.Q, Scope: f.Scope, Source: f.Source, Visible: v.vis, Limit: pageSize, Cursor: cursor}
	if f.Q != "" { // a search is not paged
		b.Cursor = ""
	}
	if f.Importance != "" {
		n, err := importanceOf(f.Importance)
		if err != nil {
			return b, err
		}
		b.MinImportance = n
	}
	var err error
	if b.Since, err = day(f.From, "from"); err != nil {
		return b, err
	}
	if b.Until, err = day(f.To, "to"); err != nil {
		return b, err
	}
	if !b.Until.IsZero() {
		b.Until = b.Until.AddDate(0, 0, 1)
	}
	return b, nil
}

// importanceOf reads an importance field; core checks its range.
func importanceOf(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, core.Errorf(core.KindInvalid, "importance: must be a whole number %d..%d", core.MinImportance, core.MaxImportance)
	}
	return n, nil
}

func day(s, field string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return t, core.Errorf(core.KindInvalid, "%s: must be a date such as 2030-01-31", field)
	}
	return t, nil
}

// memories lists memories newest first, a page at a time, or with q ranks
// them by the API's hybrid search and shows why each one matched.
func (p *page) memories(w http.ResponseWriter, r *http.Request, v viewer) {
	f := filtersOf(r)
	b, err := f.browse(v, r.URL.Query().Get("cursor"))
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	res, err := p.svc.BrowseMemories(r.Context(), b)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	out := p.view(v, "Memories")
	out.Filters, out.Items, out.Total, out.AtLeast, out.Notice = f, res.Items, res.Total, res.AtLeast, noticeOf(r)
	out.Rooms = p.roomNames(r.Context(), v, roomsOf(res.Items...))
	if res.Next != "" {
		next := f.values()
		next.Set("cursor", res.Next)
		out.NextURL = "/ui/memories?" + next.Encode()
	}
	p.render(w, http.StatusOK, "memories", out)
}

func (p *page) memory(w http.ResponseWriter, r *http.Request, v viewer) {
	id := r.PathValue("id")
	m, err := p.visibleMemory(r.Context(), v, id)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	hist, err := p.svc.MemoryHistory(r.Context(), id)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	out := p.view(v, "Memory")
	out.Memory, out.History, out.Notice, out.MayEdit, out.MayForget = &m, hist, noticeOf(r), v.mayEdit(m), v.mayForget(m)
	out.Permalink = p.permalink(r.Context(), m)
	out.Rooms = p.roomNames(r.Context(), v, roomsOf(m))
	p.render(w, http.StatusOK, "memory", out)
}

// changeable gets a memory the viewer may change as may says: 404 if they
// may not see it, 403 (with why) if it is not theirs to change so.
func (p *page) changeable(w http.ResponseWriter, r *http.Request, v viewer, may func(core.Memory) bool, why string) (core.Memory, bool) {
	m, err := p.visibleMemory(r.Context(), v, r.PathValue("id"))
	if err != nil {
		p.failErr(w, r, v, err)
		return m, false
	}
	if !may(m) {
		p.fail(w, r, v, http.StatusForbidden, why)
		return m, false
	}
	return m, true
}

// edit applies the form's text, importance, tags and expiry; only the
// fields that differ from the stored memory go into the patch, so saving an
// unchanged form writes nothing.
func (p *page) edit(w http.ResponseWriter, r *http.Request, v viewer) {
	m, ok := p.changeable(w, r, v, v.mayEdit, notYoursToEdit)
	if !ok {
		return
	}
	id := m.ID
	patch, err := patchFromForm(r, m)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	notice := "unchanged"
	if patch != (core.MemoryPatch{}) {
		if _, err := p.svc.PatchMemory(r.Context(), id, patch); err != nil {
			p.failErr(w, r, v, err)
			return
		}
		notice = "saved"
	}
	http.Redirect(w, r, "/ui/memories/"+url.PathEscape(id)+"?notice="+notice, http.StatusSeeOther)
}

func patchFromForm(r *http.Request, m core.Memory) (core.MemoryPatch, error) {
	var patch core.MemoryPatch
	if text := strings.TrimSpace(r.PostFormValue("text")); text != m.Text {
		patch.Text = &text
	}
	imp, err := importanceOf(strings.TrimSpace(r.PostFormValue("importance")))
	if err != nil {
		return patch, err
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
func (p *page) forget(w http.ResponseWriter, r *http.Request, v viewer) {
	m, ok := p.changeable(w, r, v, v.mayForget, notYours)
	if !ok {
		return
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" {
		reason = "forgotten on the memory page"
	}
	if v.member() {
		reason += " (by " + v.s.user + ")"
	}
	if err := p.svc.DeleteMemoryFor(r.Context(), m.ID, reason); err != nil {
		p.failErr(w, r, v, err)
		return
	}
	http.Redirect(w, r, "/ui/memories?notice=forgotten", http.StatusSeeOther)
}

// notices are what a redirect after a change may show, by name: the page
// never shows words from its address, which anyone can write into a link.
var notices = map[string]string{"saved": "Saved.", "unchanged": "Nothing changed.", "forgotten": "Forgotten."}

func noticeOf(r *http.Request) string { return notices[r.URL.Query().Get("notice")] }

// failErr shows a core error with the status the API gives it, and only
// its client-safe message.
func (p *page) failErr(w http.ResponseWriter, r *http.Request, v viewer, err error) {
	status := wire.Status(core.KindOf(err))
	if status >= 500 {
		// The route pattern, not the path: a member link's path holds its token.
		p.opt.Log.Error("memory page", "route", r.Pattern, "err", err)
	}
	p.fail(w, r, v, status, core.SafeMessage(err))
}

func (p *page) fail(w http.ResponseWriter, _ *http.Request, v viewer, status int, msg string) {
	out := p.view(v, http.StatusText(status))
	out.Error = msg
	p.render(w, status, "error", out)
}
