package ui

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/ada-chat/ada/core"
)

// recentConversations is how many conversations the operator's list shows.
const recentConversations = 100

// forgottenShown is how many forgotten memories the list shows.
const forgottenShown = 200

// conversations lists conversations: all for the operator, those of the
// member's rooms for a member.
func (p *page) conversations(w http.ResponseWriter, r *http.Request, v viewer) {
	var (
		list []core.Conversation
		err  error
	)
	if v.member() {
		list, err = p.svc.RoomConversations(r.Context(), v.vis.Rooms)
	} else {
		list, err = p.svc.RecentConversations(r.Context(), recentConversations)
	}
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	out := p.view(v, "Conversations")
	out.Conversations = list
	var rooms []string
	for _, c := range list {
		if c.RoomID != "" && !slices.Contains(rooms, c.RoomID) {
			rooms = append(rooms, c.RoomID)
		}
	}
	out.Rooms = p.roomNames(r.Context(), v, rooms)
	p.render(w, http.StatusOK, "conversations", out)
}

// conversation shows one conversation's turns; a member sees only those
// of a room they are in now, and 404 for any other.
func (p *page) conversation(w http.ResponseWriter, r *http.Request, v viewer) {
	id := r.PathValue("id")
	room, err := p.svc.ConversationRoom(r.Context(), id)
	if err == nil && v.member() && (room == "" || !slices.Contains(v.vis.Rooms, room)) {
		err = core.Errorf(core.KindNotFound, "conversation %s not found", id)
	}
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	turns, err := p.svc.ConversationTurns(r.Context(), id)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	out := p.view(v, "Conversation")
	out.ConversationID, out.Turns, out.ConversationRoom = id, turns, room
	out.ConversationTitle = core.FirstWords(firstAsked(turns))
	if room != "" {
		out.Rooms = p.roomNames(r.Context(), v, []string{room})
	}
	p.render(w, http.StatusOK, "conversation", out)
}

// firstAsked is the conversation's first question, its title.
func firstAsked(turns []core.ConversationTurn) string {
	for _, t := range turns {
		if t.Role == "user" {
			return t.Content
		}
	}
	return ""
}

// forgotten lists what was forgotten, when and why, without the text.
func (p *page) forgotten(w http.ResponseWriter, r *http.Request, v viewer) {
	hs, err := p.svc.Forgotten(r.Context(), v.vis, forgottenShown)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	if v.member() {
		for i := range hs {
			if hs[i].Event == core.HistoryRetire {
				// "replaced by <id>: <the new text>", and the new memory
				// may be one the member does not see.
				hs[i].Reason = ""
			}
		}
	}
	out := p.view(v, "Forgotten")
	out.History = hs
	p.render(w, http.StatusOK, "forgotten", out)
}

// export downloads, for a member, everything Ada holds about them as JSON.
func (p *page) export(w http.ResponseWriter, r *http.Request, v viewer) {
	if !v.member() {
		p.fail(w, r, v, http.StatusNotFound, "The download is for room members: it holds what Ada keeps about one of them. The operator has the API (GET /v1/memory) and the backups.")
		return
	}
	data, err := p.svc.ExportMember(r.Context(), v.s.user)
	if err != nil {
		p.failErr(w, r, v, err)
		return
	}
	body, err := json.MarshalIndent(data, "", "  ")
	if err != nil {
		p.failErr(w, r, v, core.Wrap(core.KindInternal, err, "export"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="ada-about-me.json"`)
	_, _ = w.Write(body)
}
