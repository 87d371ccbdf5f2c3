package chroma

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// Search returns the q.K documents of q's filter nearest to q.Vector.
// Chroma's HNSW index finds them when its where clause holds the whole
// filter; a filter it cannot (a tag, a page cursor) is scanned exactly
// here, as SQLite scans such filters. Distances are computed again from
// the embeddings, as on SQLite, so that they do not depend on the backend.
func (s *Store) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	if q.K <= 0 {
		return nil, nil
	}
	if len(q.Vector) != core.Dim {
		return nil, core.Errorf(core.KindInvalid, "query vector has %d dimensions, want %d", len(q.Vector), core.Dim)
	}
	var docs []core.Document
	if where, inexact := translate(q.Filter); postFiltered(inexact) {
		var err error
		if docs, err = s.find(ctx, q.Filter, []string{"documents", "embeddings"}); err != nil {
			return nil, err
		}
	} else {
		got, err := s.c.query(ctx, s.docs, q.Vector, q.K, where)
		if err != nil {
			return nil, err
		}
		if docs, err = documents(got); err != nil {
			return nil, err
		}
	}
	hits := make([]core.Hit, len(docs))
	for i, d := range docs {
		hits[i] = core.Hit{Document: d, Distance: vecindex.CosineDistance(q.Vector, d.Embedding)}
	}
	slices.SortFunc(hits, func(a, b core.Hit) int { return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(q.K, len(hits))], nil
}

// words splits text as KeywordTerms does: lower-cased letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stemOf strips a few English endings, so that "memory" and "memories"
// meet as SQLite's porter tokenizer makes them meet; the stem stays a
// prefix of the word, as the $contains search of candidates needs.
func stemOf(w string) string {
	for _, suf := range []string{"ies", "ing", "es", "ed", "ly", "s", "y"} {
		if st, ok := strings.CutSuffix(w, suf); ok && len([]rune(st)) >= 3 {
			return st
		}
	}
	return w
}

func capitalised(w string) string {
	r := []rune(w)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
