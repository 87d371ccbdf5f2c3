package storage

import (
	"testing"

	"github.com/ada-chat/ada/core/embed"
)

func BenchmarkQuantize(b *testing.B) {
	v := embed.HashVector("the quick brown fox jumps over the lazy dog")
	for b.Loop() {
		quantize(v)
	}
}

func BenchmarkHashVector(b *testing.B) {
	for b.Loop() {
		embed.HashVector("the quick brown fox jumps over the lazy dog and more words here")
	}
}
