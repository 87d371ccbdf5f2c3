package core

import (
	"bytes"
	"encoding/json"
	"sync"
)

// schemaMemoSize bounds a SchemaMemo: about 1 MB of metadata at most.
const schemaMemoSize = 4096

// A SchemaMemo validates documents as SchemaSet.ValidateEncoded does, and
// remembers the metadata that passed, its timestamp left out: a document
// whose metadata differs from one already checked by its timestamp alone
// (an import's memories, a bot's turns of one room and speaker) skips the
// JSON Schema check, 5-10 µs of CPU a document (BenchmarkPut). Every schema's timestamp is a date-time string and no
// other rule reads it (TestSchemaMemoTimestampRule), and a time.Time encodes
// to a valid one or fails to encode, so leaving it out changes no answer.
// The zero value is ready; a SchemaMemo is safe for concurrent use.
type SchemaMemo struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// Validate is s.Validate(d), remembered.
func (m *SchemaMemo) Validate(s *SchemaSet, d Document) error {
	meta, err := json.Marshal(d.Meta)
	if err != nil {
		return Wrap(KindInternal, err, "encode metadata")
	}
	return m.ValidateEncoded(s, d, meta)
}

// ValidateEncoded is s.ValidateEncoded(d, meta), remembered.
func (m *SchemaMemo) ValidateEncoded(s *SchemaSet, d Document, meta []byte) error {
	if err := s.validateFields(d); err != nil {
		return err
	}
	key, ok := metaWithoutTimestamp(d.Meta.Type, meta)
	if ok {
		m.mu.Lock()
		_, seen := m.seen[key]
		m.mu.Unlock()
		if seen {
			return nil
		}
	}
	if err := s.validateMeta(d, meta); err != nil {
		return err
	}
	if ok {
		m.mu.Lock()
		if m.seen == nil || len(m.seen) >= schemaMemoSize {
			m.seen = make(map[string]struct{}, schemaMemoSize)
		}
		m.seen[key] = struct{}{}
		m.mu.Unlock()
	}
	return nil
}

// Len is how many metadata m remembers.
func (m *SchemaMemo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.seen)
}

// metaWithoutTimestamp is meta with its timestamp's value removed, when meta
// begins as json.Marshal encodes a Metadata of type t (its first two fields,
// type and timestamp); ok is false otherwise.
func metaWithoutTimestamp(t DocType, meta []byte) (key string, ok bool) {
	prefix := `{"type":"` + string(t) + `","timestamp":"`
	if !bytes.HasPrefix(meta, []byte(prefix)) {
		return "", false
	}
	end := bytes.IndexByte(meta[len(prefix):], '"')
	if end < 0 {
		return "", false
	}
	return prefix + string(meta[len(prefix)+end:]), true
}
