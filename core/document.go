package core

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

// Dim is the embedding dimension of every stored vector.
const Dim = 768

// DocType tells the five document kinds apart (metadata field "type").
type DocType string

const (
	DocPersona DocType = "persona"
	DocFAQ     DocType = "faq"
	DocMemory  DocType = "memory"
	DocTurn    DocType = "turn"
	DocSummary DocType = "summary"
)

// DocTypes lists every document type in a stable order.
var DocTypes = []DocType{DocPersona, DocFAQ, DocMemory, DocTurn, DocSummary}

// Valid reports whether t is one of the five document types.
func (t DocType) Valid() bool {
	for _, k := range DocTypes {
		if k == t {
			return true
		}
	}
	return false
}

// Source values of the base metadata.
const (
	SourceChat   = "chat"
	SourceKB     = "kb"
	SourceSystem = "system"
	SourceImport = "import"
)

// ScopeGlobal is the default scope; entity scopes are "entity:<name>".
const ScopeGlobal = "global"

// entityScopePrefix starts every entity scope.
const entityScopePrefix = "entity:"

// EntityScope returns the scope string of an entity.
func EntityScope(entity string) string { return entityScopePrefix + entity }

// ScopeEntity is the entity an entity scope names; ok is false for any
// other scope.
func ScopeEntity(scope string) (entity string, ok bool) {
	return strings.CutPrefix(scope, entityScopePrefix)
}

// scopeNamesEntity is the one rule tying the two: a document in scope
// entity:X has entity X (scope decides who reads it, entity what
// forgetting that entity reaches, so they must name the same one).
func scopeNamesEntity(scope, entity string) error {
	if name, ok := ScopeEntity(scope); ok && entity != name {
		return Errorf(KindInvalid, "entity: must be %q for scope %q, got %q", name, scope, entity)
	}
	return nil
}

// Metadata is the union of the metadata fields of all document types. The JSON
// Schemas of /v1/schema define which fields each type allows and requires;
// every write is validated against them.
type Metadata struct {
	Type      DocType   `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Source    string    `json:"source"`
	Scope     string    `json:"scope"`

	// persona
	Version string `json:"version,omitempty"`
	// persona and faq
	Topic string `json:"topic,omitempty"`
	// faq
	SpecialistName string `json:"_specialist_name,omitempty"`
	EntryVersion   string `json:"_version,omitempty"`
	// memory
	Importance int      `json:"importance,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Entity     string   `json:"entity,omitempty"`
	// SourceIDs are the turns an automatic memory came from (provenance):
	// when all of them are deleted, so is the memory.
	SourceIDs []string `json:"source_ids,omitempty"`
	// ExpiresAt hides and then sweeps a memory.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// memory, turn, summary
	ConversationID string `json:"conversation_id,omitempty"`
	// turn
	Role      string `json:"role,omitempty"`
	TurnIndex *int   `json:"turn_index,omitempty"`
	// Times are the times a turn or memory mentions ("yesterday", "next
	// month"), resolved against the time its text was written.
	Times []TimeMention `json:"times,omitempty"`
	// summary
	TurnRange    string `json:"turn_range,omitempty"`
	SummaryIndex *int   `json:"summary_index,omitempty"`

	// RoomID records the Matrix room whose activity caused this document, so
	// that privacy mode and retention can find everything a room stored.
	RoomID string `json:"room_id,omitempty"`
	// Speaker is the display name of the room member who wrote a user turn;
	// UserID is their Matrix user id, on user turns and on the memories
	// learned from them (a room has many speakers: never "the user").
	Speaker string `json:"speaker,omitempty"`
	UserID  string `json:"user_id,omitempty"`
	// SubjectUserID is the Matrix user id of the member a memory is about,
	// when that is not the one who told it ("bob's dog is Rex", told by
	// alice): forgetting bob finds it.
	SubjectUserID string `json:"subject_user_id,omitempty"`
}

// Document is one stored item of the "conversations" collection.
type Document struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Meta      Metadata  `json:"metadata"`
	Embedding []float32 `json:"-"`
}

// NewDocID returns a fresh "doc-<uuid>" id.
func NewDocID() string { return "doc-" + uuid.NewString() }

// stableDocID returns a deterministic "doc-<uuid>" id (UUIDv5) for a name, so
// that synchronised entries (specialist FAQs) never duplicate.
func stableDocID(name string) string {
	return "doc-" + uuid.NewSHA1(docNamespace, []byte(name)).String()
}

var docNamespace = uuid.MustParse("6f1f6a52-8f0e-4b7a-9d7e-2b1d3c0ada00")

// NewConversationID returns a fresh "conv-<uuid>" id.
func NewConversationID() string { return "conv-" + uuid.NewString() }

// ValidConversationID reports whether id has the form conv-<uuid>.
func ValidConversationID(id string) bool {
	rest, ok := strings.CutPrefix(id, "conv-")
	if !ok {
		return false
	}
	_, err := uuid.Parse(rest)
	return err == nil && len(rest) == 36
}

// ValidDocID reports whether id has the form doc-<uuid>.
func ValidDocID(id string) bool {
	rest, ok := strings.CutPrefix(id, "doc-")
	if !ok {
		return false
	}
	_, err := uuid.Parse(rest)
	return err == nil && len(rest) == 36
}
