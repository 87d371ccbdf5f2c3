package core

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
)

// dedupCandidates is how many nearest memories of the scope are compared
// with a new one.
const dedupCandidates = 5

// saveMemory stores doc, a new memory, unless its scope already holds the
// same fact (the same normalised text, or a similarity of at least
// MemoryDedup): then that memory is refreshed instead (newer timestamp,
// the higher importance, doc's sources added) and returned with true. The
// memories in retire are retired in the same transaction, with reason.
func (s *Service) saveMemory(ctx context.Context, doc Document, retire []Document, reason string) (Document, bool, error) {
	// The look-up and the write are one step: two saves of the same fact at
	// once must not both insert it.
	s.memoryWrites.Lock()
	defer s.memoryWrites.Unlock()
	now := s.now().UTC()
	dup, err := s.findDuplicate(ctx, doc)
	if err != nil {
		return Document{}, false, err
	}
	var c Change
	saved := doc
	if dup != nil {
		saved = *dup
		saved.Meta.Timestamp = now
		saved.Meta.Importance = max(saved.Meta.Importance, doc.Meta.Importance)
		for _, id := range doc.Meta.SourceIDs {
			if !slices.Contains(saved.Meta.SourceIDs, id) {
				saved.Meta.SourceIDs = append(saved.Meta.SourceIDs, id)
			}
		}
		if doc.Meta.ExpiresAt != nil {
			saved.Meta.ExpiresAt = doc.Meta.ExpiresAt
		}
		c.History = append(c.History, historyOf(saved, HistoryRefresh, now, "the same fact was saved again"))
	} else {
		c.History = append(c.History, historyOf(saved, HistoryCreate, now, reason))
	}
	c.Put = []Document{saved}
	for _, old := range retire {
		if old.ID == saved.ID {
			continue
		}
		c.Delete = append(c.Delete, old.ID)
		c.History = append(c.History, historyOf(old, HistoryRetire, now, RetireReason(saved.ID)))
	}
	// The retired memories leave the documents: the listener hears of them
	// as of any deletion, so that no copy quoting them outlives them.
	if err := s.applyDeletion(ctx, c); err != nil {
		return Document{}, false, err
	}
	return saved, dup != nil, nil
}

// findDuplicate returns the memory of doc's scope that states the same fact.
func (s *Service) findDuplicate(ctx context.Context, doc Document) (*Document, error) {
	hits, err := s.store.Search(ctx, VectorQuery{Filter: Filter{Type: DocMemory, Scopes: []string{doc.Meta.Scope}},
		Vector: doc.Embedding, K: dedupCandidates})
	if err != nil {
		return nil, err
	}
	norm, now := normalizeFact(doc.Text), s.now()
	for _, h := range hits {
		if expired(h.Document, now) {
			continue
		}
		if normalizeFact(h.Text) == norm || 1-h.Distance >= s.opts.MemoryDedup {
			return &h.Document, nil
		}
	}
	return nil, nil
}

// normalizeFact folds case, punctuation and spacing, so that "Sam likes
// tea." and "sam likes tea" are the same fact.
func normalizeFact(text string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// GetMemory returns one memory. A retired, deleted or expired one is a
// KindNotFound error that says so and points to its history.
func (s *Service) GetMemory(ctx context.Context, id string) (Memory, error) {
	d, err := s.liveMemory(ctx, id)
	if err != nil {
		return Memory{}, err
	}
	return memoryFromDoc(d), nil
}

func (s *Service) liveMemory(ctx context.Context, id string) (Document, error) {
	if err := s.requireRAG(); err != nil {
		return Document{}, err
	}
	if !ValidDocID(id) {
		return Document{}, Errorf(KindNotFound, "memory %s not found", id)
	}
	d, err := s.store.Get(ctx, id)
	switch {
	case err == nil && d.Meta.Type == DocMemory && !expired(d, s.now()):
		return d, nil
	case err == nil && d.Meta.Type == DocMemory:
		return Document{}, Errorf(KindNotFound, "memory %s expired at %s; its history is at /v1/memory/%s/history",
			id, d.Meta.ExpiresAt.UTC().Format(time.RFC3339), id)
	case err != nil && KindOf(err) != KindNotFound:
		return Document{}, err
	}
	hist, err := s.store.History(ctx, id)
	if err != nil {
		return Document{}, err
	}
	if n := len(hist); n > 0 {
		last := hist[n-1]
		why := ""
		if last.Reason != "" {
			why = " (" + last.Reason + ")"
		}
		return Document{}, Errorf(KindNotFound, "memory %s was %s on %s%s; its history is at /v1/memory/%s/history",
			id, pastTense(last.Event), last.Time.Format(time.RFC3339), why, id)
	}
	return Document{}, Errorf(KindNotFound, "memory %s not found", id)
}

func pastTense(event string) string {
	switch event {
	case HistoryRetire:
		return "retired"
	case HistoryExpire:
		return "expired"
	default:
		return "deleted"
	}
}

// MemoryPatch changes some fields of a memory; nil fields stay.
type MemoryPatch struct {
	Text       *string
	Importance *int
	Tags       *[]string
	// ExpiresAt sets the expiry; ClearExpiry removes it.
	ExpiresAt   *time.Time
	ClearExpiry bool
}

// CheckMemoryPatch applies a patch's rules: it changes something, and each
// field it sets is valid.
func CheckMemoryPatch(p MemoryPatch, now time.Time) error {
	if p.Text == nil && p.Importance == nil && p.Tags == nil && p.ExpiresAt == nil && !p.ClearExpiry {
		return Errorf(KindInvalid, "request body must set at least one of text, importance, tags, expires_at")
	}
	if p.Text != nil {
		if _, err := memoryText(*p.Text); err != nil {
			return err
		}
	}
	if p.Importance != nil {
		if err := checkImportance("importance", *p.Importance); err != nil {
			return err
		}
	}
	if p.Tags != nil {
		if _, err := checkTags(*p.Tags); err != nil {
			return err
		}
	}
	if p.ExpiresAt != nil && !p.ClearExpiry {
		if _, err := futureExpiry(*p.ExpiresAt, now); err != nil {
			return err
		}
	}
	return nil
}

// PatchMemory changes a memory (a new text is re-embedded) and records the
// change in its history.
func (s *Service) PatchMemory(ctx context.Context, id string, p MemoryPatch) (Memory, error) {
	// Every field is checked before the new text costs an embedding.
	if err := CheckMemoryPatch(p, s.now()); err != nil {
		return Memory{}, err
	}
	d, err := s.liveMemory(ctx, id)
	if err != nil {
		return Memory{}, err
	}
	text := d.Text
	if p.Text != nil {
		text, _ = memoryText(*p.Text)
	}
	if p.Importance != nil {
		d.Meta.Importance = *p.Importance
	}
	if p.Tags != nil {
		d.Meta.Tags = cleanTags(*p.Tags)
	}
	switch {
	case p.ClearExpiry:
		d.Meta.ExpiresAt = nil
	case p.ExpiresAt != nil:
		// Checked above; checked again against a later clock it could
		// fail, and the ignored error would clear the expiry.
		t := p.ExpiresAt.UTC()
		d.Meta.ExpiresAt = &t
	}
	if text != d.Text {
		vec, err := s.embedOne(ctx, text)
		if err != nil {
			return Memory{}, err
		}
		d.Text, d.Embedding = text, vec
		d.Meta.Times = mentionedTimes(text, s.now(), nil)
	}
	now := s.now().UTC()
	d.Meta.Timestamp = now
	if _, err := s.store.Apply(ctx, Change{Put: []Document{d}, History: []HistoryEntry{historyOf(d, HistoryPatch, now, "")}}); err != nil {
		return Memory{}, err
	}
	return memoryFromDoc(d), nil
}

// MemoryHistory returns every recorded change of a memory, oldest first,
// also after it was retired or deleted.
func (s *Service) MemoryHistory(ctx context.Context, id string) ([]HistoryEntry, error) {
	if err := s.requireRAG(); err != nil {
		return nil, err
	}
	if !ValidDocID(id) {
		return nil, Errorf(KindNotFound, "memory %s not found", id)
	}
	hist, err := s.store.History(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(hist) == 0 {
		// A memory stored before histories were kept has none yet.
		d, err := s.store.Get(ctx, id)
		if err != nil || d.Meta.Type != DocMemory {
			return nil, Errorf(KindNotFound, "memory %s not found", id)
		}
		return []HistoryEntry{}, nil
	}
	return hist, nil
}

// DeleteMemory deletes a memory; other document types are never touched.
// Its history keeps the deletion.
func (s *Service) DeleteMemory(ctx context.Context, id string) error {
	return s.DeleteMemoryFor(ctx, id, "")
}

// DeleteMemoryFor deletes a memory with the reason its history records
// (a redaction, `!ada forget`; "deleted on request" when empty), never its
// text.
func (s *Service) DeleteMemoryFor(ctx context.Context, id, reason string) error {
	if err := s.requireRAG(); err != nil {
		return err
	}
	if len([]rune(reason)) > maxDeleteReason {
		return Errorf(KindInvalid, "reason: must be at most %d characters", maxDeleteReason)
	}
	if reason == "" {
		reason = "deleted on request"
	}
	if !ValidDocID(id) {
		return Errorf(KindNotFound, "memory %s not found", id)
	}
	d, err := s.store.Get(ctx, id)
	if err != nil || d.Meta.Type != DocMemory {
		if err != nil && KindOf(err) != KindNotFound {
			return err
		}
		return Errorf(KindNotFound, "memory %s not found", id)
	}
	return s.applyDeletion(ctx, Change{Delete: []string{id},
		History: []HistoryEntry{historyOf(d, HistoryDelete, s.now(), reason)}})
}

// sweepExpired deletes the memories whose expiry has passed, each with an
// expire entry in its history.
func (s *Service) sweepExpired(ctx context.Context) (int, error) {
	now := s.now()
	n := 0
	for {
		docs, err := s.store.List(ctx, Filter{Type: DocMemory, Expired: now}, 500)
		if err != nil || len(docs) == 0 {
			return n, err
		}
		var c Change
		for _, d := range docs {
			c.Delete = append(c.Delete, d.ID)
			c.History = append(c.History, historyOf(d, HistoryExpire, now, "expires_at passed"))
		}
		if err := s.applyDeletion(ctx, c); err != nil {
			return n, err
		}
		n += len(docs)
	}
}
