package chroma

import (
	"context"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestConformance runs the storage conformance suite on a real Chroma
// server, each subtest in a database of its own.
func TestConformance(t *testing.T) {
	url := storagetest.StartChroma(t).URL
	storagetest.Conformance(t, func(t *testing.T) storagetest.Backend {
		db := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
		s, err := Open(context.Background(), url+"?database="+db)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestUnreachableIsUnavailable: a stopped server is a 503, not a 500.
func TestUnreachableIsUnavailable(t *testing.T) {
	_, err := Open(context.Background(), "http://127.0.0.1:1")
	if core.KindOf(err) != core.KindUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
}
