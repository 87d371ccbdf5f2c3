package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestTagsAreBounded: every door creates and changes memories through
// CreateMemory and PatchMemory, which refuse more than MaxTags tags or one
// longer than MaxTagChars, naming the field, and store nothing.
func TestTagsAreBounded(t *testing.T) {
	u := newUnit(t, unitOptions(), &fakeLLM{})
	ctx := context.Background()
	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	long := []string{"ok", strings.Repeat("é", MaxTagChars+1)}
	for _, tc := range []struct {
		tags    []string
		mention string
	}{{many, "tags: at most 20"}, {long, "tags[1]"}} {
		if _, err := u.svc.CreateMemory(ctx, MemoryInput{Text: "the shed key is blue", Tags: tc.tags}); err == nil || KindOf(err) != KindInvalid || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("create with %d tags: err = %v, want invalid naming %q", len(tc.tags), err, tc.mention)
		}
	}
	m, err := u.svc.CreateMemory(ctx, MemoryInput{Text: "the shed key is blue", Tags: append(many[:MaxTags-2:MaxTags-2], strings.Repeat("x", MaxTagChars)), MemoryType: "fact"})
	if err != nil {
		t.Fatalf("the most tags allowed, the memory type one of them: %v", err)
	}
	for _, tags := range [][]string{many, long} {
		if _, err := u.svc.PatchMemory(ctx, m.ID, MemoryPatch{Tags: &tags}); err == nil || KindOf(err) != KindInvalid {
			t.Errorf("patch with %d tags: err = %v, want invalid", len(tags), err)
		}
	}
	got, err := u.svc.GetMemory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Meta.Tags) != MaxTags {
		t.Errorf("refused patches changed the tags: %v", got.Meta.Tags)
	}
}
