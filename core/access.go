package core

import "slices"

// Who may see, edit and forget a memory or a turn is one rule, used by
// every door (DECISIONS.md, "Identities, walls and forgetting"): the room
// commands, the memory page, MCP and the API. Identity is a user id, never
// a display name: a memory's teller (Metadata.UserID) is the sender's user
// id, and its subject (SubjectUserID) is set only when a name resolved to
// one member without ambiguity (automemory_subject.go).

// Actor is who asks. The zero Actor may do nothing.
type Actor struct {
	// Operator holds the API key: the API, MCP and the page's operator
	// session. They may do everything.
	Operator bool
	// UserID is a room member's Matrix user id.
	UserID string
	// EndUser is a user named by a chat front-end (the OpenAI endpoint's
	// user, MCP's X-Ada-Entity). They live apart from Matrix rooms and
	// members (CheckFrontEndUser keeps their names apart): they reach
	// their own entity scope alone.
	EndUser string
	// Rooms are the rooms the member is joined to now.
	Rooms []string
	// Moderates reports whether the member is a moderator (power level 50
	// or more) of a room; nil: of none (a door that cannot ask the room).
	Moderates func(room string) bool
}

// Told reports whether the actor is the one who told it (wrote the turn,
// said the fact, asked Ada to remember it).
func (a Actor) Told(m Metadata) bool { return a.UserID != "" && m.UserID == a.UserID }

// IsAbout reports whether it is about the actor: its subject, or a memory
// of their own entity scope.
func (a Actor) IsAbout(m Metadata) bool {
	return a.UserID != "" && (m.SubjectUserID == a.UserID || m.Entity == a.UserID)
}

// Owns reports whether it was stored for the actor as a front-end's end
// user: in their entity scope, outside any room.
func (a Actor) Owns(m Metadata) bool {
	return a.EndUser != "" && m.RoomID == "" && m.Scope == EntityScope(a.EndUser)
}

// MaySee: the operator everything; an end user what they own; a member
// what they told, what is about them, and what the rooms they are joined
// to now stored.
func (a Actor) MaySee(m Metadata) bool {
	return a.Operator || a.Owns(m) || a.Told(m) || a.IsAbout(m) || (m.RoomID != "" && slices.Contains(a.Rooms, m.RoomID))
}

// MayEdit: the operator anything; an end user what they own; a member only
// what they told. What another told about them they may forget, never
// rewrite: the memory would keep the other as its teller.
func (a Actor) MayEdit(m Metadata) bool { return a.Operator || a.Owns(m) || a.Told(m) }

// MayForget: the operator anything; an end user what they own; a member
// what they told or what is about them; a room moderator anything of their
// room.
func (a Actor) MayForget(m Metadata) bool {
	return a.Operator || a.Owns(m) || a.Told(m) || a.IsAbout(m) ||
		(m.RoomID != "" && a.Moderates != nil && a.Moderates(m.RoomID))
}

// Access is the part of a memory's metadata the rule reads.
func (m Memory) Access() Metadata {
	md := Metadata{Type: DocMemory, Scope: m.Meta.Scope, UserID: m.Meta.UserID, SubjectUserID: m.Meta.SubjectUserID, RoomID: m.RoomID}
	if m.Meta.Entity != nil {
		md.Entity = *m.Meta.Entity
	}
	return md
}

// Actor is the member whose view this is.
func (v *Visibility) Actor() Actor { return Actor{UserID: v.UserID, Rooms: v.Rooms} }

// Sees reports whether the member may see a document with this metadata
// (Actor.MaySee); the stores apply the same rule as a filter.
func (v *Visibility) Sees(m Metadata) bool { return v.Actor().MaySee(m) }
