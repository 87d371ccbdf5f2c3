package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxMemoryText bounds a memory's text, in characters.
const maxMemoryText = 10000

// MaxMemoryLimit is the largest page of memories returned by one search.
const MaxMemoryLimit = 20

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
	// UserID is the Matrix user who told the memory (in a room).
	UserID string
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

// defaultImportance is the importance of a memory created without one.
const defaultImportance = 3

// CreateMemory validates, embeds and stores a memory. If its scope already
// holds the same fact, that memory is refreshed instead and returned with
// Deduplicated set.
func (s *Service) CreateMemory(ctx context.Context, in MemoryInput) (Memory, error) {
	if err := s.requireRAG(); err != nil {
		return Memory{}, err
	}
	doc, err := s.memoryDocument(ctx, in)
	if err != nil {
		return Memory{}, err
	}
	saved, dedup, err := s.saveMemory(ctx, doc, nil, "")
	if err != nil {
		return Memory{}, err
	}
	m := memoryFromDoc(saved)
	m.Deduplicated = &dedup
	return m, nil
}

// The rules of a memory's fields, shared by create and patch.

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
// type, or the default; and the tags with the type added.
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

func (s *Service) memoryDocument(ctx context.Context, in MemoryInput) (Document, error) {
	f, err := memoryFieldsOf(in, s.now())
	if err != nil {
		return Document{}, err
	}
	if in.Source == "" {
		in.Source = SourceChat
	}
	vec, err := s.embedOne(ctx, f.text)
	if err != nil {
		return Document{}, err
	}
	return Document{
		ID: NewDocID(), Text: f.text, Embedding: vec,
		Meta: Metadata{
			Type: DocMemory, Timestamp: s.now().UTC(), Source: in.Source, Scope: f.scope,
			Importance: f.importance, Tags: cleanTags(f.tags), Entity: f.entity,
			ConversationID: in.ConversationID, RoomID: in.RoomID, ExpiresAt: f.expiresAt, SourceIDs: in.SourceIDs,
			UserID: in.UserID,
		},
	}, nil
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
	if scope != ScopeGlobal {
		name, ok := strings.CutPrefix(scope, "entity:")
		if !ok || strings.TrimSpace(name) == "" {
			return "", "", Errorf(KindInvalid, "scope: must be \"global\" or \"entity:<name>\", got %q", scope)
		}
		if entity == "" {
			entity = name
		}
	}
	return scope, entity, nil
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

// SearchMemories finds memories by meaning (ranked) or lists them newest
// first.
func (s *Service) SearchMemories(ctx context.Context, q MemoryQuery) ([]Memory, error) {
	page, err := s.MemoryPage(ctx, q)
	return page.Items, err
}

// MemoryPageResult is one page of memories. Next, set when a listing may
// continue, is the cursor of the following page.
type MemoryPageResult struct {
	Items []Memory
	Next  string
}

// MemoryPage finds memories by meaning (ranked, one page) or lists them
// newest first, a page at a time: with q.Cursor from the previous page's
// Next, a client walks every memory of the filter.
func (s *Service) MemoryPage(ctx context.Context, q MemoryQuery) (MemoryPageResult, error) {
	if err := s.requireRAG(); err != nil {
		return MemoryPageResult{}, err
	}
	if q.Limit < 1 || q.Limit > MaxMemoryLimit {
		return MemoryPageResult{}, Errorf(KindInvalid, "limit: must be 1..%d, got %d", MaxMemoryLimit, q.Limit)
	}
	if q.ConversationID != "" && !ValidConversationID(q.ConversationID) {
		return MemoryPageResult{}, Errorf(KindInvalid, "conversation_id: must have the form conv-<uuid>")
	}
	scopes, err := searchScopes(q.Scope, q.Entity)
	if err != nil {
		return MemoryPageResult{}, err
	}
	f := Filter{Type: DocMemory, Scopes: scopes, ConversationID: q.ConversationID, Tag: strings.TrimSpace(q.Tag)}
	if strings.TrimSpace(q.Text) != "" {
		if q.Cursor != "" {
			return MemoryPageResult{}, Errorf(KindInvalid, "cursor: only pages a listing; a search returns its best matches at once")
		}
		vec, err := s.embedOne(ctx, q.Text)
		if err != nil {
			return MemoryPageResult{}, err
		}
		items, err := s.rankMemories(ctx, q.Text, vec, f, q.Limit, 0)
		return MemoryPageResult{Items: items}, err
	}
	if q.Cursor != "" {
		pos, err := decodeCursor(q.Cursor)
		if err != nil {
			return MemoryPageResult{}, err
		}
		f.Before = &pos
	}
	docs, err := s.store.List(ctx, f, q.Limit)
	if err != nil {
		return MemoryPageResult{}, err
	}
	page := MemoryPageResult{Items: make([]Memory, 0, len(docs))}
	now := s.now()
	for _, d := range docs {
		if !expired(d, now) {
			page.Items = append(page.Items, memoryFromDoc(d))
		}
	}
	if len(docs) == q.Limit {
		last := docs[len(docs)-1]
		page.Next = encodeCursor(Position{Time: last.Meta.Timestamp, ID: last.ID})
	}
	return page, nil
}

// A cursor is the last listed memory's position, opaque to clients.
func encodeCursor(p Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Time.UnixNano(), 10) + ":" + p.ID))
}

func decodeCursor(c string) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	ts, id, ok := strings.Cut(string(raw), ":")
	n, perr := strconv.ParseInt(ts, 10, 64)
	if err != nil || !ok || perr != nil || !ValidDocID(id) {
		return Position{}, Errorf(KindInvalid, "cursor: is not a cursor this API returned (use the previous page's next)")
	}
	return Position{Time: time.Unix(0, n).UTC(), ID: id}, nil
}

// rankMemories takes the top max(4k, 20) candidates by relevance (above
// floor) and re-ranks them by relevance, importance and recency: importance
// and recency re-rank only what is relevant. Expired memories never appear.
func (s *Service) rankMemories(ctx context.Context, text string, vec []float32, f Filter, k int, floor float64) ([]Memory, error) {
	docs, err := s.searchRelevant(ctx, text, vec, relevantQuery{Filter: f, K: max(4*k, 20), Floor: floor})
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]Memory, 0, len(docs))
	for _, d := range docs {
		if expired(d.Document, now) {
			continue
		}
		m := memoryFromDoc(d.Document)
		relTerm, impTerm, bonus, score := s.score(d.Relevance, d.Meta.Timestamp, d.Meta.Importance, now)
		sim, ex := d.Similarity, d.Explain
		ex.RelevanceTerm, ex.ImportanceTerm, ex.RecencyTerm = &relTerm, &impTerm, &bonus
		m.Similarity, m.RecencyBonus, m.Score, m.Explain = &sim, &bonus, &score, &ex
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return *out[i].Score > *out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// expired reports whether d has an expiry that has passed.
func expired(d Document, now time.Time) bool {
	return d.Meta.ExpiresAt != nil && !d.Meta.ExpiresAt.After(now)
}

// score is DECISIONS.md's ranking, with relevance (fused keyword and
// vector evidence) for similarity:
// W_sim·relevance + W_imp·(importance/5) + bonus·0.5^(age/half-life).
// It returns the three terms and their sum; the rounded terms add up to
// the score.
func (s *Service) score(relevance float64, ts time.Time, importance int, now time.Time) (relTerm, impTerm, bonus, score float64) {
	age := now.Sub(ts)
	if age < 0 {
		age = 0
	}
	bonus = s.opts.RecencyBonus
	if s.opts.RecencyHalfLife > 0 {
		bonus *= math.Pow(0.5, float64(age)/float64(s.opts.RecencyHalfLife))
	}
	relTerm, impTerm, bonus = round4(s.opts.SimWeight*relevance), round4(s.opts.ImportanceWeight*float64(importance)/5), round4(bonus)
	return relTerm, impTerm, bonus, round4(relTerm + impTerm + bonus)
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func memoryFromDoc(d Document) Memory {
	m := Memory{ID: d.ID, Text: d.Text, Meta: MemoryMeta{
		Importance: d.Meta.Importance, Timestamp: d.Meta.Timestamp.UTC(), Source: d.Meta.Source,
		Scope: d.Meta.Scope, Tags: d.Meta.Tags, ExpiresAt: d.Meta.ExpiresAt, SourceIDs: d.Meta.SourceIDs,
		UserID: d.Meta.UserID,
	}}
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
