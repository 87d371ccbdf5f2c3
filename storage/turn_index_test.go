package storage

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestTurnIndexLookups: List finds turns by their index within a
// conversation (the chat's neighbours of recalled turns, summaries' ranges)
// through migration 8's index, not by parsing every turn's metadata; and
// the lookup by a set of indexes returns exactly those turns.
func TestTurnIndexLookups(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv, other := core.NewConversationID(), core.NewConversationID()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var docs []core.Document
	for i := range 40 {
		docs = append(docs, turnDoc(conv, "", i, "turn", start.Add(time.Duration(i)*time.Minute)),
			turnDoc(other, "", i, "other turn", start.Add(time.Duration(i)*time.Minute)))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	got, err := db.List(ctx, core.Filter{Type: core.DocTurn, ConversationID: conv, TurnIndexes: []int{3, 17, 39, 41}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, d := range got {
		if d.Meta.ConversationID != conv {
			t.Errorf("turn %s of another conversation", d.ID)
		}
		idx = append(idx, *d.Meta.TurnIndex)
	}
	slices.Sort(idx)
	if !slices.Equal(idx, []int{3, 17, 39}) {
		t.Errorf("turn indexes %v, want [3 17 39]", idx)
	}
	after, upTo := 5, 8
	for name, f := range map[string]core.Filter{
		"indexes": {Type: core.DocTurn, ConversationID: conv, TurnIndexes: []int{3, 17}},
		"range":   {Type: core.DocTurn, ConversationID: conv, AfterTurn: &after, UpToTurn: &upTo},
	} {
		where, args := filterSQL(f)
		if p := queryPlan(t, db, "SELECT id FROM "+listSource(f)+where+" ORDER BY ts DESC, id DESC LIMIT 10", args...); !strings.Contains(p, "documents_turn_index") {
			t.Errorf("%s: the lookup does not use documents_turn_index: %s", name, p)
		}
	}
}

// queryPlan is SQLite's plan for query, its steps joined by "; ".
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
