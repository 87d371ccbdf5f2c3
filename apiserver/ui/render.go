package ui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

//go:embed assets/*.html assets/style.css
var assets embed.FS

// view is what every template gets.
type view struct {
	Title string
	CSRF  string // the session's token, for its forms
	// LogOut offers the logout form: to a member, and to the operator when
	// a key let them in. An open page (no API_KEY) lets the next visit in
	// again, so there is nothing to log out of.
	LogOut  bool
	Member  string // the member of a member session
	Error   string
	Notice  string
	Filters filters
	Items   []core.Memory
	Total   int
	AtLeast bool // Total is a lower bound
	NextURL string
	Memory  *core.Memory
	// MayEdit, MayForget: the viewer may correct, forget Memory.
	MayEdit, MayForget bool
	// Permalink is where Memory came from on matrix.to: the message when
	// the bridge linked one, else the room.
	Permalink      string
	History        []core.HistoryEntry
	Conversations  []core.Conversation
	ConversationID string
	Turns          []core.ConversationTurn
	// LinkToken is the member link's token, for the form that redeems it.
	LinkToken string
	// ConversationRoom is the room of the conversation shown ("" for one
	// over the API), ConversationTitle its first words.
	ConversationRoom, ConversationTitle string
	// Rooms are the names of the rooms on the page, by id (readable.go).
	Rooms map[string]string
	// Now is when the page is made; AIName names Ada's turns.
	Now    time.Time
	AIName string
}

// view starts a page's data for the viewer.
func (p *page) view(v viewer, title string) view {
	return view{Title: title, CSRF: v.s.csrf, Member: v.s.user, LogOut: v.s.csrf != "" && (v.s.user != "" || p.opt.APIKey != ""),
		Now: p.opt.Now(), AIName: p.opt.AIName}
}

var funcs = template.FuncMap{
	"code": codeSpans,
	"date": dateOf,
	"join": func(s []string) string { return strings.Join(s, ", ") },
	"list": func(s ...string) []string { return s },
	"event": func(e string) string {
		if w, ok := eventWords[e]; ok {
			return w
		}
		return e
	},
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
	"num": func(f *float64) string {
		if f == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f", *f)
	},
	"rank": func(n *int) string {
		if n == nil {
			return "no match"
		}
		return fmt.Sprintf("#%d", *n)
	},
}

// eventWords name the history's events for people.
var eventWords = map[string]string{
	core.HistoryCreate: "created", core.HistoryRefresh: "told again", core.HistoryPatch: "edited",
	core.HistoryRetire: "retired by a correction", core.HistoryDelete: "forgotten", core.HistoryExpire: "expired",
}

// templates are parsed once at start-up; a broken template fails the
// package's tests, never a request.
// codeSpans shows a message's `code` spans as code, the rest escaped:
// the page's messages name commands ("`!ada web`") as chat does, and the
// backticks must not show (issue 40 item 14).
func codeSpans(s string) template.HTML {
	var b strings.Builder
	for i, seg := range strings.Split(s, "`") {
		if i%2 == 1 && strings.Count(s, "`")%2 == 0 {
			b.WriteString("<code>" + template.HTMLEscapeString(seg) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(seg))
	}
	return template.HTML(b.String()) //nolint:gosec // every segment is escaped above
}

var templates = template.Must(template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html"))

// render writes the page into a buffer first, so a template error is a
// clean 500 instead of half a page.
func (p *page) render(w http.ResponseWriter, status int, name string, v view) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, v); err != nil {
		p.opt.Log.Error("memory page template", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (p *page) style(w http.ResponseWriter, _ *http.Request) {
	css, _ := assets.ReadFile("assets/style.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(css)
}
