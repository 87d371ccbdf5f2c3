package wire

import (
	"encoding/json"
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
