package chroma

import (
	"context"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestWhereCondsAdmitAsChromaDoes: a filter's conditions its where clause
// holds exactly (whereConds) admit, read in Go (core.AdmitsAll), the
// documents Chroma's where admits, for every filter case of the storage
// tests (storagetest.FilterCorpus) on a real server: what a write adds to
// the keyword search's remembered lists (termCache.written) rests on it.
func TestWhereCondsAdmitAsChromaDoes(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "clauses")
	docs, cases := storagetest.FilterCorpus([2]string{core.NewConversationID(), core.NewConversationID()})
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, f := range cases {
		where := whereOf(f)
		conds, ok := whereConds(f)
		if where == nil || !ok {
			continue
		}
		held++
		got, err := s.c.get(ctx, s.docs, getRequest{Where: where, Include: []string{}})
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		for i := range docs {
			if admits, want := core.AdmitsAll(conds, &docs[i]), slices.Contains(got.IDs, docs[i].ID); admits != want {
				t.Errorf("where %s, %s %q: Go admits %v, Chroma %v", termScope(where), docs[i].Meta.Type, docs[i].Text, admits, want)
			}
		}
	}
	if held < len(cases)/2 {
		t.Fatalf("only %d of %d filter cases have their where clause held exactly", held, len(cases))
	}
}
