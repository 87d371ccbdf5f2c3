package storage

import (
	"testing"

	"github.com/ada-chat/ada/storage/storagetest"
)

// TestConformance runs the storage conformance suite on SQLite; the
// Chroma backend runs the same suite (storage/chroma).
func TestConformance(t *testing.T) {
	storagetest.Conformance(t, func(t *testing.T) storagetest.Backend { return openTestDB(t) })
}
