package ui

import (
	"context"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// The page is read by room members, not only by the operator (issue 40
// item 14): rooms go by their names, speakers by their display names, and
// times in words, with the exact time kept for machines (the datetime
// attribute) and for the curious (the tooltip).

// RoomName is the room's name as its members know it, else its id.
func (v view) RoomName(room string) string {
	if n := v.Rooms[room]; n != "" {
		return n
	}
	return room
}

// ScopeOf says whom a memory is for: a room's memory by the room's name
// (its entity is the room), another entity's by the entity; and the room
// it came from, when that is another.
func (v view) ScopeOf(m core.Memory) string {
	e := entityOf(m)
	var s string
	switch {
	case e == "":
		s = m.Meta.Scope
	case strings.HasPrefix(e, "!"):
		s = "the room " + v.RoomName(e)
	default:
		s = "about " + e
	}
	if m.RoomID != "" && m.RoomID != e {
		s += ", from " + v.RoomName(m.RoomID)
	}
	return s
}

// entityOf is the memory's entity, "" for none.
func entityOf(m core.Memory) string {
	if m.Meta.Entity == nil {
		return ""
	}
	return *m.Meta.Entity
}

// roomsOf are the rooms the memories name: where each came from and a
// room memory's entity.
func roomsOf(ms ...core.Memory) []string {
	var rooms []string
	for _, m := range ms {
		for _, r := range []string{m.RoomID, entityOf(m)} {
			if strings.HasPrefix(r, "!") && !slices.Contains(rooms, r) {
				rooms = append(rooms, r)
			}
		}
	}
	return rooms
}

// SpeakerOf names who wrote a turn: the member's display name as it was
// when they wrote it, Ada for her answers, "user" for a caller of the API
// without a name.
func (v view) SpeakerOf(t core.ConversationTurn) string {
	switch {
	case t.Role == "assistant":
		return v.AIName
	case t.Speaker != "":
		return t.Speaker
	}
	return t.Role
}

// When is t for people, in a <time> element: "3 days ago" (or "in 2 days")
// near now, else the date; the exact UTC time is in its datetime attribute
// and its tooltip.
func (v view) When(t time.Time) template.HTML {
	exact := t.UTC().Format("2006-01-02 15:04 UTC")
	//nolint:gosec // only formatted times: no text from outside
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s">%s</time>`,
		t.UTC().Format(time.RFC3339), exact, template.HTMLEscapeString(inWords(v.Now, t))))
}

// WhenText is When for a time the API gives as text (a turn's timestamp).
func (v view) WhenText(s string) template.HTML {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return template.HTML(template.HTMLEscapeString(s)) //nolint:gosec // escaped
	}
	return v.When(t)
}

// inWords says how far t is from now: in minutes, hours or days within a
// month, else as a date.
func inWords(now, t time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var n int
	var unit string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		n, unit = int(d/time.Minute), "minute"
	case d < 24*time.Hour:
		n, unit = int(d/time.Hour), "hour"
	case d < 30*24*time.Hour:
		n, unit = int(d/(24*time.Hour)), "day"
	default:
		return t.UTC().Format("2 January 2006")
	}
	if n != 1 {
		unit += "s"
	}
	if future {
		return fmt.Sprintf("in %d %s", n, unit)
	}
	return fmt.Sprintf("%d %s ago", n, unit)
}

// roomNames names the rooms for the page, through the bridge; none
// without one. A member's page names only the rooms they are in now: a
// room's name and its members' names (a room without a name goes by them)
// are the room's, and a member sees memories of rooms they left or are
// not in (what they told there, what is about them), which keep its id.
func (p *page) roomNames(ctx context.Context, v viewer, rooms []string) map[string]string {
	if v.member() {
		rooms = slices.DeleteFunc(slices.Clone(rooms), func(r string) bool { return !slices.Contains(v.vis.Rooms, r) })
	}
	if p.opt.Members == nil || len(rooms) == 0 {
		return nil
	}
	return p.opt.Members.RoomNames(ctx, rooms)
}
