package storage

import (
	"context"
	"testing"

	"github.com/ada-chat/ada/core"
)

// BenchmarkKeywordFiltered measures the chat's filtered keyword searches
// (the FAQ, memories, a conversation's turns and summaries) in a store of
// ADA_BENCH_N documents (default 20000) shaped like a chat store's
// (seedChatLike), for a word in 4% of the documents and a rare one; each
// plan is timed, and the one keywordPlanFor chooses is marked. For profiling:
//
//	ADA_BENCH_N=100000 go test -tags goolm,sqlite_fts5 -run '^$' -bench KeywordFiltered ./storage
func BenchmarkKeywordFiltered(b *testing.B) {
	ctx := context.Background()
	db, n := openBenchStore(b)
	convs := seedChatLike(b, db, n)
	conv := convs[len(convs)/2]
	filters := []struct {
		name string
		f    core.Filter
	}{
		{"faq", core.Filter{Type: core.DocFAQ}},
		{"memory", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}},
		{"turns", core.Filter{Type: core.DocTurn, ConversationID: conv}},
		{"summaries", core.Filter{Type: core.DocSummary, ConversationID: conv}},
	}
	for _, word := range []string{"broad", "rare"} {
		for _, f := range filters {
			q := core.KeywordQuery{Filter: f.f, Text: word, K: 20}
			chosen := keywordPlan(-1)
			if _, err := db.keywordSearch(ctx, q, func(within, total int, matches int64, limit, k int) keywordPlan {
				chosen = keywordPlanFor(within, total, matches, limit, k)
				return chosen
			}); err != nil {
				b.Fatal(err)
			}
			for _, plan := range []keywordPlan{planOverfetch, planRestrict, planJoin} {
				name := word + "/" + f.name + "/" + []string{"overfetch", "restrict", "join"}[plan]
				if plan == chosen {
					name += "(chosen)"
				}
				b.Run(name, func(b *testing.B) {
					force := func(int, int, int64, int, int) keywordPlan { return plan }
					for b.Loop() {
						if _, err := db.keywordSearch(ctx, q, force); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
