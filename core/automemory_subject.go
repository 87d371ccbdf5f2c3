package core

import "strings"

// A fact alice tells about bob is bob's (issue 26): the extraction names
// the person each fact is about ("about"), and the memory records that
// member's user id as its subject (Metadata.SubjectUserID), so that
// forgetting bob finds it. Names are mapped to user ids through who the
// request knows in the room: the speaker and the senders of the context
// messages that carry a user id.

// roomMembers maps the folded names (and user ids) of the request's known
// room members to their user ids.
func roomMembers(req ChatRequest) map[string]string {
	ids := map[string]string{}
	add := func(name, userID string) {
		if !matrixUserID.MatchString(userID) {
			return
		}
		ids[strings.ToLower(userID)] = userID
		if local, _, ok := strings.Cut(strings.TrimPrefix(userID, "@"), ":"); ok {
			if _, taken := ids[strings.ToLower(local)]; !taken {
				ids[strings.ToLower(local)] = userID
			}
		}
		if n := strings.ToLower(strings.TrimSpace(name)); n != "" {
			ids[n] = userID
		}
	}
	for _, m := range req.ContextMessages {
		add(m.Sender, m.UserID)
	}
	if req.Speaker != nil {
		add(req.Speaker.Name, req.Speaker.UserID) // the speaker's own name wins
	}
	return ids
}

// subjectOf is the user id of the member a fact is about, "" when the
// model named no one the request knows.
func subjectOf(about string, members map[string]string) string {
	about = strings.ToLower(strings.TrimSpace(about))
	about = strings.TrimSuffix(strings.TrimSuffix(about, "'s"), "’s")
	return members[about]
}
