package bot

import (
	"testing"

	"maunium.net/go/mautrix/id"
)

func TestInvitePolicy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		room    roomNames
		inviter id.UserID
		reject  bool
	}{
		{"open bridge", Options{}, roomNames{ID: "!a:x"}, "@anyone:y", false},
		{"never join by id", Options{NeverJoinRooms: []string{"!a:x"}}, roomNames{ID: "!a:x"}, "@u:x", true},
		{"never join by alias", Options{NeverJoinRooms: []string{"#no:x"}}, roomNames{ID: "!a:x", Aliases: []string{"#no:x"}}, "@u:x", true},
		{"never join beats allowed", Options{AllowedRooms: []string{"!a:x"}, NeverJoinRooms: []string{"!a:x"}}, roomNames{ID: "!a:x"}, "@u:x", true},
		{"allowed room", Options{AllowedRooms: []string{"!b:x", "!a:x"}}, roomNames{ID: "!a:x"}, "@u:x", false},
		{"not an allowed room", Options{AllowedRooms: []string{"!b:x"}}, roomNames{ID: "!a:x"}, "@u:x", true},
		{"allowed by alias", Options{AllowedRooms: []string{"#yes:x"}}, roomNames{ID: "!a:x", Aliases: []string{"#yes:x"}}, "@u:x", false},
		{"user wildcard", Options{AllowedUsers: []string{"@*:example.org"}}, roomNames{ID: "!a:x"}, "@alice:example.org", false},
		{"user wildcard other server", Options{AllowedUsers: []string{"@*:example.org"}}, roomNames{ID: "!a:x"}, "@alice:evil.org", true},
		{"wildcard is anchored", Options{AllowedUsers: []string{"@*:example.org"}}, roomNames{ID: "!a:x"}, "@alice:example.org.evil", true},
		{"dots are literal", Options{AllowedUsers: []string{"@bob:ex.org"}}, roomNames{ID: "!a:x"}, "@bob:exXorg", true},
		{"exact user", Options{AllowedUsers: []string{"@bob:x", "@carol:x"}}, roomNames{ID: "!a:x"}, "@carol:x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason := newInvitePolicy(tc.opts).decide(tc.room, tc.inviter)
			if (reason != "") != tc.reject {
				t.Errorf("decide = %q, want reject=%v", reason, tc.reject)
			}
		})
	}
	p := newInvitePolicy(Options{AllowedRooms: []string{"#a:x", "!b:x"}, NeverJoinRooms: []string{"#c:x", "#a:x"}})
	if got := p.configuredAliases(); len(got) != 2 || got[0] != "#a:x" || got[1] != "#c:x" {
		t.Errorf("configuredAliases = %v", got)
	}
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		args []string
		ok   bool
	}{
		{"!ada privacy ON", []string{"privacy", "on"}, true},
		{"!ADA   status", []string{"status"}, true},
		{"!ada", []string{}, true},
		{"!adam status", nil, false},
		{"hey !ada help", nil, false},
		{"ada help", nil, false},
	} {
		args, ok := parseCommand(tc.in)
		if ok != tc.ok || len(args) != len(tc.args) {
			t.Errorf("parseCommand(%q) = %v, %v", tc.in, args, ok)
			continue
		}
		for i := range args {
			if args[i] != tc.args[i] {
				t.Errorf("parseCommand(%q) = %v", tc.in, args)
			}
		}
	}
}
