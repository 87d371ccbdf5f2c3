package core

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

//go:embed persona.md
var defaultPersona string

// PersonaSection is one "## " section of the persona file.
type PersonaSection struct {
	ID    string
	Topic string
	Text  string
}

// persona is the loaded persona, kept in memory because every prompt
// includes all of it; the store holds the same sections as documents.
type persona struct {
	mu       sync.RWMutex
	loaded   bool
	version  string
	modTime  time.Time
	sections []PersonaSection
}

// PersonaSource is where the persona comes from: a file, or the default
// shipped in the binary when Path is empty.
type PersonaSource struct {
	Path string
}

// SplitPersona cuts Markdown into sections on "## " headings. Text before the
// first heading becomes the "general" section.
func SplitPersona(md string) []PersonaSection {
	var out []PersonaSection
	topic, buf := "general", strings.Builder{}
	flush := func() {
		if text := strings.TrimSpace(buf.String()); text != "" {
			out = append(out, PersonaSection{ID: stableDocID("persona:" + topic), Topic: topic, Text: text})
		}
		buf.Reset()
	}
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			topic = strings.ToLower(strings.TrimSpace(h))
			continue
		}
		if strings.HasPrefix(line, "# ") && buf.Len() == 0 && len(out) == 0 {
			continue // the document title is not content
		}
		buf.WriteString(line + "\n")
	}
	flush()
	return out
}

// LoadPersona reads the persona and, if it changed, replaces the persona
// documents in one transaction.
func (s *Service) LoadPersona(ctx context.Context, src PersonaSource) error {
	text, version, mod, err := readPersona(src)
	if err != nil {
		return err
	}
	s.persona.mu.RLock()
	same := s.persona.loaded && s.persona.version == version
	s.persona.mu.RUnlock()
	if same {
		return nil
	}
	sections := SplitPersona(text)
	if len(sections) == 0 {
		return fmt.Errorf("persona %s has no content", src.describe())
	}
	if s.opts.RAGEnabled {
		if err := s.storePersona(ctx, sections, version, mod); err != nil {
			return err
		}
	}
	s.persona.mu.Lock()
	s.persona.loaded, s.persona.version, s.persona.modTime, s.persona.sections = true, version, mod, sections
	s.persona.mu.Unlock()
	s.log.Info("persona loaded", "source", src.describe(), "version", version, "sections", len(sections))
	return nil
}

func (src PersonaSource) describe() string {
	if src.Path == "" {
		return "built-in persona"
	}
	return src.Path
}

// readPersona returns the text and its version: the file's modification
// time in ISO 8601, or a content hash for the built-in persona.
func readPersona(src PersonaSource) (text, version string, mod time.Time, err error) {
	if src.Path == "" {
		sum := sha256.Sum256([]byte(defaultPersona))
		return defaultPersona, "builtin-" + hex.EncodeToString(sum[:4]), time.Time{}, nil
	}
	st, err := os.Stat(src.Path)
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("persona file (PERSONA_FILE): %w", err)
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("persona file (PERSONA_FILE): %w", err)
	}
	mod = st.ModTime().UTC()
	return string(data), mod.Format(time.RFC3339Nano), mod, nil
}

func (s *Service) storePersona(ctx context.Context, sections []PersonaSection, version string, mod time.Time) error {
	docs := make([]Document, len(sections))
	for i, sec := range sections {
		docs[i] = Document{ID: sec.ID, Text: sec.Text, Meta: Metadata{
			Type: DocPersona, Timestamp: mod, Source: SourceSystem, Scope: ScopeGlobal, Version: version, Topic: sec.Topic,
		}}
	}
	if err := s.embedDocs(ctx, docs); err != nil {
		return err
	}
	return s.store.Replace(ctx, Filter{Type: DocPersona}, docs...)
}

// WatchPersona reloads the persona file when it changes, until ctx ends.
func (s *Service) WatchPersona(ctx context.Context, src PersonaSource, every time.Duration) {
	if src.Path == "" {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ctx.Err() != nil {
				return // select picks at random when both are ready
			}
			// A reload cut short by the stop is not a failure worth a line.
			if err := s.LoadPersona(ctx, src); err != nil && ctx.Err() == nil {
				s.log.Warn("persona reload failed; keeping the previous persona", "error", err)
			}
		}
	}
}

// personaLoaded reports whether a persona is loaded.
func (s *Service) personaLoaded() bool {
	s.persona.mu.RLock()
	defer s.persona.mu.RUnlock()
	return s.persona.loaded
}

func (s *Service) personaSnapshot() (sections []PersonaSection, version string, mod time.Time, ok bool) {
	s.persona.mu.RLock()
	defer s.persona.mu.RUnlock()
	return s.persona.sections, s.persona.version, s.persona.modTime, s.persona.loaded
}
