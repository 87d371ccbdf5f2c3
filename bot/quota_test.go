package bot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/storage"
)

// TestQuotaCheck: which quota a member's next question goes over, and when
// it is free again, for each of the four quotas; the one that resets last
// holds.
func TestQuotaCheck(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) time.Time { return now.Add(-ago) }
	use := []storage.BridgeUsage{
		{Member: "@a:x", Time: at(20 * time.Hour), Tokens: 500},
		{Member: "@b:x", Time: at(50 * time.Minute), Tokens: 100},
		{Member: "@a:x", Time: at(40 * time.Minute), Tokens: 300},
		{Member: "@a:x", Time: at(10 * time.Minute), Tokens: 200},
	}
	cases := []struct {
		name   string
		q      Quotas
		member string
		over   bool
		room   bool
		resets time.Time
	}{
		{name: "no quotas", q: Quotas{}, member: "@a:x"},
		{name: "member answers", q: Quotas{MemberAnswersPerHour: 2}, member: "@a:x", over: true, resets: at(40 * time.Minute).Add(time.Hour)},
		{name: "member answers, limit 1", q: Quotas{MemberAnswersPerHour: 1}, member: "@a:x", over: true, resets: at(10 * time.Minute).Add(time.Hour)},
		{name: "another member", q: Quotas{MemberAnswersPerHour: 2}, member: "@b:x"},
		{name: "member tokens", q: Quotas{MemberTokensPerDay: 900}, member: "@a:x", over: true, resets: at(20 * time.Hour).Add(24 * time.Hour)},
		{name: "member tokens, two must go", q: Quotas{MemberTokensPerDay: 400}, member: "@a:x", over: true, resets: at(40 * time.Minute).Add(24 * time.Hour)},
		{name: "member tokens under", q: Quotas{MemberTokensPerDay: 1001}, member: "@a:x"},
		{name: "room answers", q: Quotas{RoomAnswersPerHour: 3}, member: "@c:x", over: true, room: true, resets: at(50 * time.Minute).Add(time.Hour)},
		{name: "room tokens", q: Quotas{RoomTokensPerDay: 1000}, member: "@c:x", over: true, room: true, resets: at(20 * time.Hour).Add(24 * time.Hour)},
		{name: "the later reset holds", q: Quotas{MemberAnswersPerHour: 2, RoomTokensPerDay: 1000}, member: "@a:x", over: true, room: true,
			resets: at(20 * time.Hour).Add(24 * time.Hour)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hit, over := quotaCheck(c.q, use, usedBy(use, c.member), now)
			if over != c.over || (over && (hit.room != c.room || !hit.resets.Equal(c.resets))) {
				t.Errorf("got over=%v %+v; want over=%v room=%v resets %s", over, hit, c.over, c.room, c.resets)
			}
		})
	}
}

// usedBy is the part of use that is member's.
func usedBy(use []storage.BridgeUsage, member string) []storage.BridgeUsage {
	var out []storage.BridgeUsage
	for _, u := range use {
		if u.Member == member {
			out = append(out, u)
		}
	}
	return out
}

// TestMemberQuotaAcrossRooms (issue 36): a member's quotas count their
// answers in every room, so that spreading questions over rooms (or a
// direct chat per question) does not multiply them; a room's quota counts
// that room only.
func TestMemberQuotaAcrossRooms(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := db.Bridge()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i, room := range []string{"!a:x", "!b:x", "!c:x"} {
		id, err := b.AddUsage(ctx, room, "@a:x", now.Add(time.Duration(i-30)*time.Minute), now.Add(-tokenWindow))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SetUsageTokens(ctx, id, 400); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AddUsage(ctx, "!d:x", "@b:x", now.Add(-time.Minute), now.Add(-tokenWindow)); err != nil {
		t.Fatal(err)
	}
	check := func(q Quotas, room id.RoomID) (quotaHit, bool) {
		t.Helper()
		hit, over, err := (&quotas{limits: q, bridge: b}).check(ctx, room, "@a:x", now)
		if err != nil {
			t.Fatal(err)
		}
		return hit, over
	}
	if hit, over := check(Quotas{MemberAnswersPerHour: 3}, "!d:x"); !over || hit.room || !hit.resets.Equal(now.Add(30*time.Minute)) {
		t.Errorf("three answers in three rooms against 3 an hour, asked in a fourth: over=%v %+v", over, hit)
	}
	if _, over := check(Quotas{MemberTokensPerDay: 1000}, "!d:x"); !over {
		t.Error("1200 tokens in three rooms against 1000 a day is not over")
	}
	if _, over := check(Quotas{RoomAnswersPerHour: 2}, "!d:x"); over {
		t.Error("other rooms' answers count against this room's quota")
	}
	if hit, over := check(Quotas{RoomAnswersPerHour: 1}, "!a:x"); !over || !hit.room {
		t.Errorf("the room's own answer against 1 an hour: over=%v %+v", over, hit)
	}
}

// TestModeratorExemption (issue 36): ExemptModerators exempts a moderator
// of a room with other members, never in a room of two (a direct chat,
// whose maker is its moderator).
func TestModeratorExemption(t *testing.T) {
	q := Quotas{MemberAnswersPerHour: 1, ExemptModerators: true}
	cases := []struct {
		name           string
		q              Quotas
		level, members int
		want           bool
	}{
		{"moderator of a group", q, moderatorLevel, 3, true},
		{"member of a group", q, moderatorLevel - 1, 5, false},
		{"moderator of a direct chat", q, 100, 2, false},
		{"alone with Ada", q, 100, 1, false},
		{"exemption off", Quotas{MemberAnswersPerHour: 1}, 100, 5, false},
	}
	for _, c := range cases {
		if got := exemptAs(c.q, c.level, c.members); got != c.want {
			t.Errorf("%s: exempt %v, want %v", c.name, got, c.want)
		}
	}
}

// TestQuotaNotices: one notice per member and quota window; a room's
// notice is apart from its members'; after the reset there may be another.
func TestQuotaNotices(t *testing.T) {
	var n quotaNotices
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	resets := now.Add(30 * time.Minute)
	if !n.due("!r:x", "@a:x", resets, now) {
		t.Fatal("the first notice is due")
	}
	if n.due("!r:x", "@a:x", resets, now.Add(time.Minute)) {
		t.Error("a second notice before the reset")
	}
	if !n.due("!r:x", "@b:x", resets, now) || !n.due("!r:x", "", resets, now) || !n.due("!s:x", "@a:x", resets, now) {
		t.Error("another member, the room, or another room are apart")
	}
	if !n.due("!r:x", "@a:x", resets.Add(time.Hour), resets) {
		t.Error("after the reset a notice is due again")
	}
	text := quotaText(quotaHit{what: "answers an hour", limit: 2, resets: now.Add(65 * time.Minute)}, now)
	if !strings.Contains(text, "your quota of 2 answers an hour") || !strings.Contains(text, "until 13:05 UTC (in 1 h 5 min)") {
		t.Errorf("notice: %q", text)
	}
	// Issue 40 item 9: a room's quota is the room's, a member's counts
	// over all rooms; neither is "on this bridge".
	if !strings.Contains(text, "in all rooms together") || strings.Contains(text, "on this bridge") {
		t.Errorf("a member's notice: %q", text)
	}
	text = quotaText(quotaHit{room: true, what: "answers an hour", limit: 9, resets: now.Add(5 * time.Minute)}, now)
	if !strings.Contains(text, "This room has reached its quota of 9 answers an hour") || strings.Contains(text, "bridge") {
		t.Errorf("a room's notice: %q", text)
	}
}

// TestSettingsBounds: every value is checked against the operator's
// bounds when set and when used, so that a stored value the operator no
// longer allows falls back to the default.
func TestSettingsBounds(t *testing.T) {
	o := Options{DefaultModel: "small", RoomModels: []string{"big", "small", ""}, MaxContextMessages: 5}
	rs := newRoomSettings(o, nil, nil)
	parse := func(name, raw string) (string, string) {
		s, ok := rs.find(name)
		if !ok {
			t.Fatalf("no setting %s", name)
		}
		return s.parse(o, raw)
	}
	for _, c := range []struct{ name, raw, want string }{
		{"model", "big", "big"}, {"model", "small", "small"}, {"model", "huge", ""},
		{"replies", "Room", "room"}, {"replies", "everywhere", ""},
		{"memory", "manual", "manual"}, {"memory", "off", ""},
		{"context", "0", "0"}, {"context", "5", "5"}, {"context", "6", ""}, {"context", "-1", ""}, {"context", "many", ""},
		{"instructions", " Be terse. ", "Be terse."}, {"instructions", strings.Repeat("x", maxRoomInstructions+1), ""},
	} {
		got, refusal := parse(c.name, c.raw)
		if got != c.want || (c.want == "") != (refusal != "") {
			t.Errorf("%s %q: got %q, refusal %q; want %q", c.name, c.raw, got, refusal, c.want)
		}
	}
	if _, refusal := parse("model", "huge"); !strings.Contains(refusal, "`small`, `big`") {
		t.Errorf("the refusal should list the allowed models once each: %q", refusal)
	}
	var s answerSettings
	for _, r := range rs.table {
		r.apply(r.def(o), &s)
	}
	if s != (answerSettings{model: "small", context: 5, stream: "off", location: time.UTC}) {
		t.Errorf("the defaults give %+v", s)
	}
}

// TestOptionsFromRoomSettings: the settings of issue 24 reach the bridge.
func TestOptionsFromRoomSettings(t *testing.T) {
	env := map[string]string{"MATRIX_HOMESERVER": "http://hs", "MATRIX_USER_ID": "@ada:hs", "MATRIX_PASSWORD": "pw",
		"LLM_MODEL": "small", "ROOM_MODELS": "big, huge", "MEMBER_ANSWERS_PER_HOUR": "1", "ROOM_ANSWERS_PER_HOUR": "2",
		"MEMBER_TOKENS_PER_DAY": "3", "ROOM_TOKENS_PER_DAY": "4", "QUOTA_EXEMPT_MODERATORS": "true"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	o := OptionsFrom(cfg, "test")
	want := Quotas{MemberAnswersPerHour: 1, RoomAnswersPerHour: 2, MemberTokensPerDay: 3, RoomTokensPerDay: 4, ExemptModerators: true}
	if o.DefaultModel != "small" || strings.Join(o.RoomModels, ",") != "big,huge" || o.Quotas != want {
		t.Errorf("options: model %q, room models %v, quotas %+v", o.DefaultModel, o.RoomModels, o.Quotas)
	}
}
