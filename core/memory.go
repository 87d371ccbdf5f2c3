package core

import (
	"encoding/json"
	"time"
)

// MemoryInput is a memory to create.
type MemoryInput struct {
	Text string
	// Importance is 1..5; nil means the default, 3. MemoryType, if set,
	// gives the default instead (DECISIONS.md) and is added as a tag.
	Importance     *int
	MemoryType     string
	Scope          string
	Entity         string
	Tags           []string
	ConversationID string
	Source         string
	RoomID         string
	// ExpiresAt hides the memory after this time; nil never expires.
	ExpiresAt *time.Time
	// SourceIDs are the turns an automatic memory came from.
	SourceIDs []string
	// UserID is the Matrix user who told the memory (in a room);
	// SubjectUserID the member it is about, when known.
	UserID        string
	SubjectUserID string
}

// MemoryMeta is the meta object of the Memory API record.
type MemoryMeta struct {
	Importance     int        `json:"importance"`
	Timestamp      time.Time  `json:"timestamp"`
	Source         string     `json:"source"`
	Scope          string     `json:"scope"`
	Entity         *string    `json:"entity"`
	Tags           []string   `json:"tags"`
	ConversationID *string    `json:"conversation_id"`
	ExpiresAt      *time.Time `json:"expires_at"`
	SourceIDs      []string   `json:"source_ids,omitempty"`
	// UserID is the room member who told it (memories from Matrix rooms).
	UserID string `json:"user_id,omitempty"`
	// SubjectUserID is the room member the memory is about, when known.
	SubjectUserID string `json:"subject_user_id,omitempty"`
}

// MarshalJSON writes timestamp and expires_at in the API's one time format,
// isoTime's (as chat replies show them): ISO 8601, microseconds, explicit
// offset.
func (m MemoryMeta) MarshalJSON() ([]byte, error) {
	type plain MemoryMeta // without this method
	var expires *string
	if m.ExpiresAt != nil {
		s := isoTime(*m.ExpiresAt)
		expires = &s
	}
	return json.Marshal(struct {
		plain
		Timestamp string  `json:"timestamp"`
		ExpiresAt *string `json:"expires_at"`
	}{plain(m), isoTime(m.Timestamp), expires})
}

// Memory is a memory as clients see it. The scores are set by searches.
type Memory struct {
	ID           string     `json:"id"`
	Text         string     `json:"text"`
	Meta         MemoryMeta `json:"meta"`
	Score        *float64   `json:"score,omitempty"`
	Similarity   *float64   `json:"similarity,omitempty"`
	RecencyBonus *float64   `json:"recency_bonus,omitempty"`
	// Deduplicated is set on create: true when the memory already existed
	// and was refreshed instead (ID is then the existing memory's).
	Deduplicated *bool `json:"deduplicated,omitempty"`
	// Explain is set by searches: why the memory ranks where it does.
	Explain *Explanation `json:"explain,omitempty"`
	// RoomID is the Matrix room whose activity stored the memory; the
	// memory page links to it and scopes members by it. Not in the API's
	// answer (its schema is fixed).
	RoomID string `json:"-"`
}

// MemoryQuery selects memories. Without Text they are listed newest first.
type MemoryQuery struct {
	Text           string
	Entity         string
	Scope          string
	ConversationID string
	Tag            string
	Limit          int
	// Cursor continues a listing (no Text) where the previous page ended:
	// the Next of that page.
	Cursor string
}

// expired reports whether d has an expiry that has passed.
func expired(d Document, now time.Time) bool {
	return d.Meta.ExpiresAt != nil && !d.Meta.ExpiresAt.After(now)
}

func memoryFromDoc(d Document) Memory {
	m := Memory{ID: d.ID, Text: d.Text, Meta: MemoryMeta{
		Importance: d.Meta.Importance, Timestamp: d.Meta.Timestamp.UTC(), Source: d.Meta.Source,
		Scope: d.Meta.Scope, Tags: d.Meta.Tags, ExpiresAt: d.Meta.ExpiresAt, SourceIDs: d.Meta.SourceIDs,
		UserID: d.Meta.UserID, SubjectUserID: d.Meta.SubjectUserID,
	}, RoomID: d.Meta.RoomID}
	if m.Meta.Tags == nil {
		m.Meta.Tags = []string{}
	}
	if d.Meta.Entity != "" {
		e := d.Meta.Entity
		m.Meta.Entity = &e
	}
	if d.Meta.ConversationID != "" {
		c := d.Meta.ConversationID
		m.Meta.ConversationID = &c
	}
	return m
}
