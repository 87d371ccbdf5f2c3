package core

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// maxMemoryText bounds a memory's text, in characters.
const maxMemoryText = 10000

// MaxMemoryText is maxMemoryText for the clients that say it in plain words
// (the bridge's `!ada remember`).
const MaxMemoryText = maxMemoryText

// A memory's tags are bounded: they are shown on the page and in every
// answer that lists the memory, and are no place to keep text.
const (
	MaxTags     = 20
	MaxTagChars = 64
)

// defaultImportance is the importance of a memory created without one.
const defaultImportance = 3

// memoryText checks and trims a memory's text. The rules in this file are
// shared by create and patch.
func memoryText(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", Errorf(KindInvalid, "text: is required and must not be blank")
	case len([]rune(text)) > maxMemoryText:
		return "", Errorf(KindInvalid, "text: must be at most %d characters", maxMemoryText)
	}
	return text, nil
}

// checkImportance checks an importance given in the field named field.
func checkImportance(field string, n int) error {
	if n < MinImportance || n > MaxImportance {
		return Errorf(KindInvalid, "%s: must be %d..%d, got %d", field, MinImportance, MaxImportance, n)
	}
	return nil
}

// memoryTypeImportance maps memory_type to its default importance
// (DECISIONS.md); the type is kept as a tag too.
var memoryTypeImportance = map[string]int{"important": 5, "fact": 3, "context": 2}

// importanceOf resolves a memory's importance: given, from its memory
// type, or the default; and the tags with the type added, checked (the
// type counts as a tag, as it is stored as one).
func importanceOf(in MemoryInput) (int, []string, error) {
	imp, tags := defaultImportance, in.Tags
	if in.MemoryType != "" {
		v, ok := memoryTypeImportance[in.MemoryType]
		if !ok {
			return 0, nil, Errorf(KindInvalid, "memory_type: must be important, fact or context; got %q", in.MemoryType)
		}
		imp, tags = v, append(slices.Clone(tags), in.MemoryType)
	}
	if in.Importance != nil {
		if err := checkImportance("importance", *in.Importance); err != nil {
			return 0, nil, err
		}
		imp = *in.Importance
	}
	tags, err := checkTags(tags)
	if err != nil {
		return 0, nil, err
	}
	return imp, tags, nil
}

func futureExpiry(t, now time.Time) (*time.Time, error) {
	t = t.UTC()
	if !t.After(now) {
		return nil, Errorf(KindInvalid, "expires_at: must be in the future, got %s", t.Format(time.RFC3339))
	}
	return &t, nil
}

// memoryFields are a new memory's fields, checked and normalised.
type memoryFields struct {
	text, scope, entity string
	importance          int
	tags                []string
	expiresAt           *time.Time
}

// CheckMemory applies a new memory's rules without storing it: what the
// API checks before it answers, and what every create goes through.
func CheckMemory(in MemoryInput, now time.Time) error {
	_, err := memoryFieldsOf(in, now)
	return err
}

func memoryFieldsOf(in MemoryInput, now time.Time) (memoryFields, error) {
	var f memoryFields
	var err error
	if f.text, err = memoryText(in.Text); err != nil {
		return f, err
	}
	if f.importance, f.tags, err = importanceOf(in); err != nil {
		return f, err
	}
	if f.scope, f.entity, err = resolveScope(in.Scope, in.Entity); err != nil {
		return f, err
	}
	switch {
	case in.ConversationID != "" && !ValidConversationID(in.ConversationID):
		return f, Errorf(KindInvalid, "conversation_id: must have the form conv-<uuid>")
	case in.UserID != "" && !matrixUserID.MatchString(in.UserID):
		return f, Errorf(KindInvalid, "user_id: must be a Matrix user id like @alice:example.org, got %q", in.UserID)
	}
	if in.ExpiresAt != nil {
		if f.expiresAt, err = futureExpiry(*in.ExpiresAt, now); err != nil {
			return f, err
		}
	}
	return f, nil
}

// resolveScope applies DECISIONS.md: an entity sets the scope to entity:X
// unless a scope is given; an entity scope implies its entity.
func resolveScope(scope, entity string) (string, string, error) {
	scope, entity = strings.TrimSpace(scope), strings.TrimSpace(entity)
	if scope == "" {
		scope = ScopeGlobal
		if entity != "" {
			scope = EntityScope(entity)
		}
	}
	if scope == ScopeGlobal {
		return scope, entity, nil
	}
	name, ok := ScopeEntity(scope)
	if !ok || strings.TrimSpace(name) == "" {
		return "", "", Errorf(KindInvalid, "scope: must be \"global\" or %q, got %q", EntityScope("<name>"), scope)
	}
	if entity == "" {
		entity = name
	}
	if err := scopeNamesEntity(scope, entity); err != nil {
		return "", "", err
	}
	return scope, entity, nil
}

// checkTags applies the tags' bounds (MaxTags, MaxTagChars), naming the
// tag at fault by its place in tags, and returns them cleaned.
func checkTags(tags []string) ([]string, error) {
	for i, t := range tags {
		if n := utf8.RuneCountInString(strings.TrimSpace(t)); n > MaxTagChars {
			return nil, Errorf(KindInvalid, "tags[%d]: must be at most %d characters, got %d", i, MaxTagChars, n)
		}
	}
	out := cleanTags(tags)
	if len(out) > MaxTags {
		return nil, Errorf(KindInvalid, "tags: at most %d tags, got %d", MaxTags, len(out))
	}
	return out, nil
}

func cleanTags(tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// searchScopes applies the scope rule: with an entity, its scope plus
// global; without, global only, so entity memories never leak.
func searchScopes(scope, entity string) ([]string, error) {
	scope, entity = strings.TrimSpace(scope), strings.TrimSpace(entity)
	switch {
	case scope != "":
		if _, _, err := resolveScope(scope, ""); err != nil {
			return nil, err
		}
		return []string{scope}, nil
	case entity != "":
		return []string{EntityScope(entity), ScopeGlobal}, nil
	default:
		return []string{ScopeGlobal}, nil
	}
}
