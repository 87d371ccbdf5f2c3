package storage

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"
)

// TestRoomSettingsAndUsage: a room's settings are set, replaced, unset and
// read back; usage is counted, given tokens, uncounted and pruned; leaving
// the room drops both, and other rooms keep theirs.
func TestRoomSettingsAndUsage(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.SetRoomSetting(ctx, "!a:x", "model", "m1", now))
	must(b.SetRoomSetting(ctx, "!a:x", "model", "m2", now))
	must(b.SetRoomSetting(ctx, "!a:x", "replies", "room", now))
	must(b.SetRoomSetting(ctx, "!b:x", "memory", "manual", now))
	if had, err := b.UnsetRoomSetting(ctx, "!a:x", "replies"); err != nil || !had {
		t.Fatalf("unset replies = %v, %v; want true", had, err)
	}
	if had, _ := b.UnsetRoomSetting(ctx, "!a:x", "replies"); had {
		t.Fatal("unset twice reported a setting")
	}
	got, err := b.RoomSettings(ctx, "!a:x")
	must(err)
	if want := map[string]string{"model": "m2"}; !maps.Equal(got, want) {
		t.Fatalf("settings = %v, want %v", got, want)
	}

	old, err := b.AddUsage(ctx, "!a:x", "@u:x", now.Add(-25*time.Hour), time.Time{})
	must(err)
	first, err := b.AddUsage(ctx, "!a:x", "@u:x", now.Add(-time.Hour), now.Add(-24*time.Hour))
	must(err)
	must(b.SetUsageTokens(ctx, first, 120))
	failed, err := b.AddUsage(ctx, "!a:x", "@v:x", now, now.Add(-24*time.Hour))
	must(err)
	must(b.DropUsage(ctx, failed))
	_, err = b.AddUsage(ctx, "!b:x", "@u:x", now, now.Add(-24*time.Hour))
	must(err)
	use, err := b.UsageSince(ctx, "!a:x", time.Time{})
	must(err)
	if len(use) != 1 || use[0].ID != first || use[0].Tokens != 120 || use[0].Member != "@u:x" || !use[0].Time.Equal(now.Add(-time.Hour)) {
		t.Fatalf("usage = %+v, want only answer %d with 120 tokens (%d pruned, %d dropped)", use, first, old, failed)
	}

	must(b.DropRoomSettings(ctx, "!a:x"))
	if s, _ := b.RoomSettings(ctx, "!a:x"); len(s) != 0 {
		t.Fatalf("settings after leaving = %v", s)
	}
	if u, _ := b.UsageSince(ctx, "!a:x", time.Time{}); len(u) != 0 {
		t.Fatalf("usage after leaving = %v", u)
	}
	if s, _ := b.RoomSettings(ctx, "!b:x"); s["memory"] != "manual" {
		t.Fatalf("another room's settings = %v", s)
	}
	if u, _ := b.UsageSince(ctx, "!b:x", time.Time{}); len(u) != 1 {
		t.Fatalf("another room's usage = %v", u)
	}
}

// TestMemberUsageUsesItsIndex: a member's usage across rooms, read for
// every question while quotas are set, is a search of
// bridge_usage_member_ts in time order, not a scan of the table or a sort.
func TestMemberUsageUsesItsIndex(t *testing.T) {
	p := queryPlan(t, openTestDB(t), memberUsageSinceSQL, "@u:x", int64(0))
	if !strings.Contains(p, "USING INDEX bridge_usage_member_ts (member=? AND ts>?)") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("MemberUsageSince's plan: %s, want a search of bridge_usage_member_ts by member and time, without a sort", p)
	}
}
