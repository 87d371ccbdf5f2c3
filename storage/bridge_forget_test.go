package storage

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestAnswerPartsLinked (issue 40, migration 0017): every event Ada posts
// for an answer is linked to its question, each of its kind, the edits and
// reactions beside the reply messages; ReplyLinksTo gives them all for
// `!ada forget me`, with their kinds so that only the messages are counted,
// and a redaction's LinksOf gives them all too.
func TestAnswerPartsLinked(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	links := []BridgeLink{
		{EventID: "$q", DocID: "$reply", Kind: LinkReply, Sender: "@bob:x"},
		{EventID: "$q", DocID: "$edit", Kind: LinkEdit, Sender: "@bob:x"},
		{EventID: "$q", DocID: "$brain", Kind: LinkReaction, Sender: "@bob:x"},
		{EventID: "$q", DocID: "doc-1", Kind: LinkTurn, ConversationID: "c"},
		{EventID: "$other", DocID: "$theirs", Kind: LinkReply, Sender: "@carol:x"},
	}
	if err := b.AddLinks(ctx, "!r:x", links, now); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReplyLinksTo(ctx, "!r:x", "@bob:x")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, l := range got {
		kinds[l.DocID] = l.Kind
	}
	if want := map[string]string{"$reply": LinkReply, "$edit": LinkEdit, "$brain": LinkReaction}; len(kinds) != len(want) ||
		kinds["$reply"] != LinkReply || kinds["$edit"] != LinkEdit || kinds["$brain"] != LinkReaction {
		t.Errorf("bob's answer parts = %v, want %v", kinds, want)
	}
	of, err := b.LinksOf(ctx, "!r:x", "$q")
	if err != nil {
		t.Fatal(err)
	}
	var posted []string
	for _, l := range of {
		if l.Posted() {
			posted = append(posted, l.DocID)
		}
	}
	slices.Sort(posted)
	if !slices.Equal(posted, []string{"$brain", "$edit", "$reply"}) {
		t.Errorf("the question's posted links = %v", posted)
	}
	if err := b.AddLinks(ctx, "!r:x", []BridgeLink{{EventID: "$q", DocID: "$x", Kind: "bogus"}}, now); err == nil {
		t.Errorf("a link of an unknown kind was accepted")
	}
}
