package bot

import (
	"regexp"
	"slices"
	"strings"

	"maunium.net/go/mautrix/id"
)

// invitePolicy decides who may invite the bot and where it may go
// (ALLOWED_ROOMS, NEVER_JOIN_ROOMS, ALLOWED_USERS). The bot joins rooms only
// when invited; a refused invite is rejected, never left pending.
type invitePolicy struct {
	allowedRooms []string // room ids and #aliases; empty = any
	neverRooms   []string
	users        []*regexp.Regexp // empty = anyone
}

func newInvitePolicy(o Options) *invitePolicy {
	p := &invitePolicy{allowedRooms: o.AllowedRooms, neverRooms: o.NeverJoinRooms}
	for _, pat := range o.AllowedUsers {
		if pat = strings.TrimSpace(pat); pat != "" {
			p.users = append(p.users, userPattern(pat))
		}
	}
	return p
}

// userPattern turns "@*:example.org" into an anchored regexp; * matches any
// run of characters, everything else is literal.
func userPattern(pat string) *regexp.Regexp {
	parts := strings.Split(pat, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// userAllowed reports whether user may invite and talk to the bot.
func (p *invitePolicy) userAllowed(user id.UserID) bool {
	if len(p.users) == 0 {
		return true
	}
	for _, re := range p.users {
		if re.MatchString(user.String()) {
			return true
		}
	}
	return false
}

// roomNames are the ways a room can be named in the settings: its id and
// the aliases the bot could learn (canonical alias from the invite, and the
// configured aliases that resolve to it).
type roomNames struct {
	ID      id.RoomID
	Aliases []string
}

func (n roomNames) in(list []string) bool {
	for _, entry := range list {
		if entry == n.ID.String() || slices.Contains(n.Aliases, entry) {
			return true
		}
	}
	return false
}

// decide returns "" to accept the invite, else the reason to reject it.
func (p *invitePolicy) decide(room roomNames, inviter id.UserID) string {
	switch {
	case room.in(p.neverRooms):
		return "this room is in NEVER_JOIN_ROOMS"
	case len(p.allowedRooms) > 0 && !room.in(p.allowedRooms):
		return "this room is not in ALLOWED_ROOMS"
	case !p.userAllowed(inviter):
		return "the inviter is not in ALLOWED_USERS"
	}
	return ""
}

// configuredAliases lists the #aliases named in the room settings; they are
// resolved when an invite arrives, because aliases can move between rooms.
func (p *invitePolicy) configuredAliases() []string {
	var out []string
	for _, e := range slices.Concat(p.allowedRooms, p.neverRooms) {
		if strings.HasPrefix(e, "#") && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}
