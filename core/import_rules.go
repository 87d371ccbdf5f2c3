package core

import (
	"math"
	"strings"
	"unicode/utf8"
)

// unitTolerance is how far from 1 a stored vector's squared length may be:
// an export writes float32s in their shortest form, which keeps a unit
// vector's length within about 1e-6 of 1.
const unitTolerance = 1e-3

// CheckImported applies to a document read from an export (ada import,
// ada migrate-store) the rules Ada's own doors apply when they write one,
// so that an import cannot store what no door would: a memory's text and
// tags within their bounds, an entity scope naming its entity (scope
// decides who reads a document, entity what forgetting that entity
// reaches), and a vector of unit length when there is one. The schema
// (Schemas().Validate) has been checked already. Messages name the field
// as the export spells it.
func CheckImported(d Document) error {
	if err := scopeNamesEntity(d.Meta.Scope, d.Meta.Entity); err != nil {
		return Errorf(KindInvalid, "metadata.%s", SafeMessage(err))
	}
	if d.Meta.Type == DocMemory {
		if n := utf8.RuneCountInString(strings.TrimSpace(d.Text)); n > maxMemoryText {
			return Errorf(KindInvalid, "text: a memory has at most %d characters, this one %d", maxMemoryText, n)
		}
		if _, err := checkTags(d.Meta.Tags); err != nil {
			return Errorf(KindInvalid, "metadata.%s", SafeMessage(err))
		}
	}
	if d.Embedding != nil {
		var sq float64
		for _, x := range d.Embedding {
			sq += float64(x) * float64(x)
		}
		if math.Abs(sq-1) > unitTolerance {
			return Errorf(KindInvalid, "embedding: must have unit length (Ada's embedders L2-normalise every vector), its length is %.4f", math.Sqrt(sq))
		}
	}
	return nil
}

// CheckImportedHistory applies Ada's rules to a history entry read from an
// export: only the events Ada records (history.go).
func CheckImportedHistory(h HistoryEntry) error {
	switch h.Event {
	case HistoryCreate, HistoryRefresh, HistoryPatch, HistoryRetire, HistoryDelete, HistoryExpire:
		return nil
	}
	return Errorf(KindInvalid, "event: %q is not one Ada records (create, refresh, patch, retire, delete, expire)", h.Event)
}
