package wire

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/ada-chat/ada/core"
)

// MemoryCreate is the body of POST /v1/memory, in both documented forms
// (text or content; importance or memory_type).
type MemoryCreate struct {
	Text           *string  `json:"text,omitempty"`
	Content        *string  `json:"content,omitempty"`
	Importance     *int     `json:"importance,omitempty"`
	MemoryType     *string  `json:"memory_type,omitempty"`
	Scope          *string  `json:"scope,omitempty"`
	Entity         *string  `json:"entity,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	ConversationID *string  `json:"conversation_id,omitempty"`
	ExpiresAt      *string  `json:"expires_at,omitempty"`
	RoomID         *string  `json:"room_id,omitempty"`
	UserID         *string  `json:"user_id,omitempty"`
}

// ToInput converts the body's types; the values' rules are core's
// (core.CheckMemory).
func (b *MemoryCreate) ToInput() (core.MemoryInput, error) {
	var in core.MemoryInput
	switch {
	case b.Text != nil:
		in.Text = *b.Text
	case b.Content != nil:
		in.Text = *b.Content
	}
	in.Importance = b.Importance
	in.Tags, in.MemoryType = b.Tags, deref(b.MemoryType)
	in.Scope, in.Entity, in.ConversationID = deref(b.Scope), deref(b.Entity), deref(b.ConversationID)
	in.RoomID, in.UserID = strings.TrimSpace(deref(b.RoomID)), strings.TrimSpace(deref(b.UserID))
	if b.ExpiresAt != nil {
		t, err := parseTime("expires_at", *b.ExpiresAt)
		if err != nil {
			return in, err
		}
		in.ExpiresAt = &t // core rejects a time that has passed
	}
	in.Source = core.SourceChat
	return in, nil
}

// MemoryCreateOf is the body that sends in (the Go client's side).
func MemoryCreateOf(in core.MemoryInput) MemoryCreate {
	b := MemoryCreate{Text: &in.Text, Importance: in.Importance, MemoryType: ref(in.MemoryType),
		Scope: ref(in.Scope), Entity: ref(in.Entity), Tags: in.Tags, ConversationID: ref(in.ConversationID),
		RoomID: ref(in.RoomID), UserID: ref(in.UserID)}
	if in.ExpiresAt != nil {
		b.ExpiresAt = ref(formatTime(*in.ExpiresAt))
	}
	return b
}

// MemoryPatch is the body of PATCH /v1/memory/{id}. expires_at is raw so
// that null (clear the expiry) differs from absent (keep it).
type MemoryPatch struct {
	Text       *string         `json:"text"`
	Importance *int            `json:"importance"`
	Tags       *[]string       `json:"tags"`
	ExpiresAt  json.RawMessage `json:"expires_at"`
}

// ToPatch converts the body's types; the values' rules are core's
// (core.CheckMemoryPatch: a body that sets nothing, a misspelt field, is
// refused there).
func (b *MemoryPatch) ToPatch() (core.MemoryPatch, error) {
	p := core.MemoryPatch{Text: b.Text, Tags: b.Tags, Importance: b.Importance}
	switch raw := strings.TrimSpace(string(b.ExpiresAt)); {
	case raw == "":
	case raw == "null":
		p.ClearExpiry = true
	default:
		var v string
		if json.Unmarshal(b.ExpiresAt, &v) != nil {
			return p, core.Errorf(core.KindInvalid, "expires_at: must be an ISO 8601 string or null, got %s", Truncate(raw, 40))
		}
		t, err := parseTime("expires_at", v)
		if err != nil {
			return p, err
		}
		p.ExpiresAt = &t
	}
	return p, nil
}

// MemoryPage is the answer of GET /v1/memory.
type MemoryPage struct {
	Items []core.Memory `json:"items"`
	Count int           `json:"count"`
	// Next is the cursor of the following page of a listing; null at the end
	// and for searches.
	Next *string `json:"next"`
}

// MemoryPageOf is the body that answers p (the server's side).
func MemoryPageOf(p core.MemoryPageResult) MemoryPage {
	return MemoryPage{Items: p.Items, Count: len(p.Items), Next: ref(p.Next)}
}

// ToCore is the page the body carries (the Go client's side).
func (b MemoryPage) ToCore() core.MemoryPageResult {
	return core.MemoryPageResult{Items: b.Items, Next: deref(b.Next)}
}

// memoryParams are the text parameters of GET /v1/memory and the field of
// core.MemoryQuery each one sets.
var memoryParams = []struct {
	name  string
	field func(*core.MemoryQuery) *string
}{
	{"search", func(q *core.MemoryQuery) *string { return &q.Text }},
	{"entity", func(q *core.MemoryQuery) *string { return &q.Entity }},
	{"scope", func(q *core.MemoryQuery) *string { return &q.Scope }},
	{"conversation_id", func(q *core.MemoryQuery) *string { return &q.ConversationID }},
	{"tag", func(q *core.MemoryQuery) *string { return &q.Tag }},
	{"cursor", func(q *core.MemoryQuery) *string { return &q.Cursor }},
}

// MemoryQueryValues are the query parameters that ask GET /v1/memory for q
// (the Go client's side); a zero limit is left to the server's default.
func MemoryQueryValues(q core.MemoryQuery) url.Values {
	v := url.Values{}
	for _, p := range memoryParams {
		if s := *p.field(&q); s != "" {
			v.Set(p.name, s)
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// ParseMemoryQuery reads the query of GET /v1/memory from param, which
// returns a parameter's trimmed value ("" when absent). Both documented forms
// are read: search= (default limit 20) and query= (default limit 10).
func ParseMemoryQuery(param func(name string) string) (core.MemoryQuery, error) {
	var q core.MemoryQuery
	for _, p := range memoryParams {
		*p.field(&q) = param(p.name)
	}
	q.Limit = core.MaxMemoryLimit
	if q.Text == "" {
		if text := param("query"); text != "" {
			q.Text, q.Limit = text, core.DefaultSearchLimit
		}
	}
	limit, err := ParseInt("limit", param("limit"))
	if limit != nil {
		q.Limit = *limit
	}
	return q, err
}

// ParseInt parses an optional integer query parameter, nil when raw is
// empty; its range is core's to check.
func ParseInt(name, raw string) (*int, error) {
	if raw == "" {
		return nil, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil {
		return nil, core.Errorf(core.KindInvalid, "%s: must be an integer, got %q", name, Truncate(raw, 40))
	}
	return &v, nil
}
