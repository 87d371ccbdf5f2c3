package chroma

import (
	"context"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// clauseAdmits says of each document what Chroma's where says, for the
// where clause of every filter case (storagetest.FilterCorpus), read from
// a real server and evaluated here alike.
func TestClauseAdmitsAsChromaDoes(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "clauses")
	docs, cases := storagetest.FilterCorpus([2]string{core.NewConversationID(), core.NewConversationID()})
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	metas := make([]map[string]any, len(docs))
	for i, d := range docs {
		m, err := chromaMeta(d)
		if err != nil {
			t.Fatal(err)
		}
		metas[i], _ = normalised(m).(map[string]any)
	}
	for _, f := range cases {
		where := whereOf(f)
		if where == nil {
			continue
		}
		got, err := s.c.get(ctx, s.docs, getRequest{Where: where, Include: []string{}})
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		clause := parseClause(termScope(where))
		for i, d := range docs {
			admits, known := clauseAdmits(clause, metas[i])
			if want := slices.Contains(got.IDs, d.ID); !known || admits != want {
				t.Errorf("where %s, %s %q: here admits %v (known %v), Chroma %v", termScope(where), d.Meta.Type, d.Text, admits, known, want)
			}
		}
	}
}
