package core

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A fact alice tells about bob is bob's (issue 26): the extraction names
// the person each fact is about ("about"), and the memory records that
// member's user id as its subject (Metadata.SubjectUserID), so that
// forgetting bob finds it and bob may see and forget it (access.go).
//
// A display name never decides identity on its own (issue 36 item 4):
// anyone can take another member's name. A name resolves to a member only
// when exactly one member of the room goes by it; otherwise the fact has no
// subject. Where a name is shared, people and the model read it with the
// user id (Labels.Of), which no one else can take.

// Roster is who is in a room now, as the bridge knows them: each member's
// user id and display name.
type Roster []Speaker

// foldName is a name as it is compared: case and spaces aside, without a
// possessive.
func foldName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
}

// names maps every folded name a member of r goes by (user id, localpart,
// display name, label) to the user ids that go by it.
func (r Roster) names() map[string][]string {
	ids := map[string][]string{}
	add := func(name, userID string) {
		if k := foldName(name); k != "" && !slices.Contains(ids[k], userID) {
			ids[k] = append(ids[k], userID)
		}
	}
	for _, m := range r {
		if !matrixUserID.MatchString(m.UserID) {
			continue
		}
		add(m.UserID, m.UserID)
		if local, _, ok := strings.Cut(strings.TrimPrefix(m.UserID, "@"), ":"); ok {
			add(local, m.UserID)
		}
		add(m.Name, m.UserID)
	}
	// The labels last: a label is a name someone may also have taken.
	labelled := map[string][]string{}
	for _, m := range r {
		if matrixUserID.MatchString(m.UserID) {
			k := foldName(labelOf(m.Name, m.UserID, ids))
			if !slices.Contains(labelled[k], m.UserID) {
				labelled[k] = append(labelled[k], m.UserID)
			}
		}
	}
	for k, us := range labelled {
		for _, u := range us {
			add(k, u)
		}
	}
	return ids
}

// Labels are the room's names worked out once, for the many labels of one
// answer or listing: in a room of a thousand members that is a millisecond
// and some seven thousand allocations each time.
type Labels struct{ names map[string][]string }

// Labels works out the room's names for Labels.Of.
func (r Roster) Labels() Labels { return Labels{names: r.names()} }

// Of is how people and the model read a member called name: the name
// alone where no other member of the room goes by it, else with the user
// id; a name shaped like a user id always with the real one. The zero
// Labels is an empty room's: every name alone, unless shaped like a user
// id.
func (l Labels) Of(name, userID string) string { return labelOf(name, userID, l.names) }

func labelOf(name, userID string, names map[string][]string) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return userID
	case name == userID:
		return name
	case strings.Contains(name, "@") && strings.Contains(name, ":"),
		slices.ContainsFunc(names[foldName(name)], func(id string) bool { return id != userID }):
		return name + " (" + userID + ")"
	}
	return name
}

// roomMembers maps each name that exactly one member goes by to that
// member's user id: the room's current members when the bridge gives them
// (ChatRequest.Members), else those the request knows (the speaker and the
// senders of the context messages that carry a user id).
func roomMembers(req ChatRequest) map[string]string {
	r := req.Members
	if r == nil {
		for _, m := range req.ContextMessages {
			r = append(r, Speaker{Name: m.Sender, UserID: m.UserID})
		}
	}
	if req.Speaker != nil {
		r = append(r, *req.Speaker)
	}
	ids := map[string]string{}
	for name, us := range r.names() {
		if len(us) == 1 {
			ids[name] = us[0]
		}
	}
	return ids
}

// subjectOf is the user id of the member a fact is about, "" when the
// model named no one the room knows by that name alone.
func subjectOf(about string, members map[string]string) string {
	return members[foldName(about)]
}

// Named is the user id of the one member a remembered text names (issue 40
// item 4): "bob owes me a copy of Dune" told by carol is bob's, by the same
// rule as extraction. A name counts only where exactly one member goes by
// it, and only as a whole word; the members in except (the teller, Ada)
// are left out. "" when the text names no member or several.
func (r Roster) Named(text string, except ...string) string {
	folded := strings.ToLower(text)
	found := ""
	for name, us := range r.names() {
		if len(us) != 1 || slices.Contains(except, us[0]) || !containsWord(folded, name) {
			continue
		}
		if found != "" && found != us[0] {
			return ""
		}
		found = us[0]
	}
	return found
}

// containsWord reports whether word occurs in s with no letter or digit
// right before or after it.
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		i = start + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
