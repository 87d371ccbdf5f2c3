package ui

import (
	"context"
	"net/http"

	"github.com/ada-chat/ada/core"
)

// viewer is who asks: the session, and for a member what they may see.
type viewer struct {
	s   session
	vis *core.Visibility // nil: the operator, who sees everything
}

func (v viewer) member() bool { return v.vis != nil }

// viewerOf scopes a member's session to their rooms as they are now.
func (p *page) viewerOf(ctx context.Context, s session) (viewer, error) {
	if s.user == "" {
		return viewer{s: s}, nil
	}
	if p.opt.Members == nil {
		return viewer{}, core.Errorf(core.KindUnavailable, "member sessions need the Matrix bridge, which is not running")
	}
	rooms, err := p.opt.Members.JoinedRooms(ctx, s.user)
	if err != nil {
		return viewer{}, err
	}
	return viewer{s: s, vis: &core.Visibility{UserID: s.user, Rooms: rooms}}, nil
}

// metaOf is the part of a memory's metadata that decides who sees it.
func metaOf(m core.Memory) core.Metadata {
	md := core.Metadata{UserID: m.Meta.UserID, SubjectUserID: m.Meta.SubjectUserID, RoomID: m.RoomID}
	if m.Meta.Entity != nil {
		md.Entity = *m.Meta.Entity
	}
	return md
}

// sees reports whether the viewer may see m; a member asking for anything
// else is told it does not exist (404), not that it is hidden.
func (v viewer) sees(m core.Memory) bool {
	return v.vis == nil || v.vis.Sees(metaOf(m))
}

// mayChange applies the room commands' rule of who may forget what
// (bot/commands_forget_who.go, DECISIONS.md "forgetting"): a member may
// forget, and here also correct, what came from them (`!ada forget`) or is
// about them (`!ada forget me`). Another member's room memory needs a room
// moderator, whose power level only the room knows: the page refuses it
// and says to use `!ada forget` in the room.
func (v viewer) mayChange(m core.Memory) bool {
	return v.vis == nil || v.vis.About(metaOf(m))
}

// visibleMemory gets a memory the viewer may see, or a NotFound error.
func (p *page) visibleMemory(ctx context.Context, v viewer, id string) (core.Memory, error) {
	m, err := p.svc.GetMemory(ctx, id)
	if err != nil && v.member() && core.KindOf(err) == core.KindNotFound {
		// core says when and why a forgotten memory went (a correction's
		// reason quotes the new text): a member learns nothing of it.
		err = core.Errorf(core.KindNotFound, "memory %s not found", id)
	}
	if err != nil {
		return core.Memory{}, err
	}
	if !v.sees(m) {
		return core.Memory{}, core.Errorf(core.KindNotFound, "memory %s not found", id)
	}
	return m, nil
}

const notYours = "That memory came from another member. Only they, or a room moderator with `!ada forget` in the room, can change it."

const noBridge = "Member links need the Matrix bridge, which is not running in this Ada. Ask the operator."

// memberLinkForm is what a one-time link from `!ada web` opens: a button
// that redeems it by POST. A GET spends nothing, for two reasons: a
// homeserver's URL preview fetches the link before the member does, and a
// link clicked in Element Web is a navigation another site started, on
// which the browser withholds the SameSite=Strict cookie through every
// redirect, so the list would ask for the operator's key. The button's
// POST is this page's own, and its redirect carries the cookie.
func (p *page) memberLinkForm(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if p.opt.Members == nil {
		p.fail(w, r, viewer{}, http.StatusServiceUnavailable, noBridge)
		return
	}
	out := view{Title: "Open your memory page", LinkToken: r.PathValue("token")}
	p.render(w, http.StatusOK, "memberlogin", out)
}

// memberLogin redeems a one-time link from `!ada web`. The token is in the
// path: it is never logged, and a spent one is refused (410).
func (p *page) memberLogin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if p.opt.Members == nil {
		p.fail(w, r, viewer{}, http.StatusServiceUnavailable, noBridge)
		return
	}
	client, ok := p.loginGate(w, r, func() {
		p.fail(w, r, viewer{}, http.StatusTooManyRequests, "Too many bad links: wait a minute and try again.")
	})
	if !ok {
		return
	}
	user, err := p.opt.Members.Redeem(r.Context(), r.PathValue("token"))
	if err == nil && user == "" { // a session of no user is the operator's
		err = core.Errorf(core.KindNotFound, "the link names no member")
	}
	if err != nil {
		if core.KindOf(err) != core.KindNotFound {
			p.opt.Log.Error("memory page: member link", "err", err)
			p.fail(w, r, viewer{}, http.StatusServiceUnavailable, "The link could not be checked; try again in a moment.")
			return
		}
		p.keys.Fail(client)
		p.fail(w, r, viewer{}, http.StatusGone, "This link was used already, has expired, or was never issued. Send `!ada web` in the room for a new one.")
		return
	}
	p.start(w, user)
	http.Redirect(w, r, "/ui/memories", http.StatusSeeOther)
}
