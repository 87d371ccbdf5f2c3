package ui

import (
	"context"
	"encoding/base64"
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
	// Ended sessions (`!ada web logout`, `!ada forget me`) are known to the
	// bridge, asked at every request like the rooms.
	epoch, err := p.opt.Members.SessionEpoch(ctx, s.user)
	if err != nil {
		return viewer{}, err
	}
	if epoch != s.epoch {
		p.drop(ctx, s.id)
		return viewer{}, core.Errorf(core.KindUnauthorized, sessionEnded)
	}
	rooms, err := p.opt.Members.JoinedRooms(ctx, s.user)
	if err != nil {
		return viewer{}, err
	}
	return viewer{s: s, vis: &core.Visibility{UserID: s.user, Rooms: rooms}}, nil
}

// actor is the viewer in core's rule of who may see, edit and forget
// (core/access.go). A room moderator's power level only the room knows: on
// the page a moderator is a member like any other, and forgets another
// member's room memory with `!ada forget` in the room.
func (v viewer) actor() core.Actor {
	if v.vis == nil {
		return core.Actor{Operator: true}
	}
	return v.vis.Actor()
}

// sees reports whether the viewer may see m; a member asking for anything
// else is told it does not exist (404), not that it is hidden.
func (v viewer) sees(m core.Memory) bool { return v.actor().MaySee(m.Access()) }

// mayEdit: only what the viewer told (a member may forget what another
// told about them, never rewrite it under the other's name).
func (v viewer) mayEdit(m core.Memory) bool { return v.actor().MayEdit(m.Access()) }

// mayForget: what the viewer told or what is about them.
func (v viewer) mayForget(m core.Memory) bool { return v.actor().MayForget(m.Access()) }

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

const sessionEnded = "This session of your memory page was ended (`!ada web logout` or `!ada forget me`). Send `!ada web` in a room for a new link."

const notYoursToEdit = "That memory was told by another member: only they can correct it. If it is about you, you may forget it."

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
	token := r.PathValue("token")
	if !linkTokenShaped(token) {
		// The token becomes the form's target: a crafted path must not
		// make the page post somewhere else.
		p.fail(w, r, viewer{}, http.StatusNotFound, "There is no such page.")
		return
	}
	if open, err := p.opt.Members.LinkOpen(r.Context(), token); err != nil {
		p.opt.Log.Warn("memory page: could not check a member link; showing its button", "err", err)
	} else if !open {
		p.fail(w, r, viewer{}, http.StatusGone, linkSpent)
		return
	}
	p.render(w, http.StatusOK, "memberlogin", view{Title: "Open your memory page", LinkToken: token})
}

// linkSpent is what a link that cannot be used any more says, on GET and
// on POST.
const linkSpent = "This link was used already, has expired, or was never issued. Send `!ada web` in the room for a new one."

// linkTokenBytes is the randomness of a token the bridge issues
// (storage/bridge_web_logins.go), which sends it base64url, unpadded.
const linkTokenBytes = 32

// linkTokenShaped reports a token of the issued shape: exactly 43
// characters of the base64url alphabet.
func linkTokenShaped(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(linkTokenBytes) {
		return false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	return err == nil && len(raw) == linkTokenBytes
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
	user, epoch, err := p.opt.Members.Redeem(r.Context(), r.PathValue("token"))
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
		p.fail(w, r, viewer{}, http.StatusGone, linkSpent)
		return
	}
	p.start(w, r, user, epoch)
	http.Redirect(w, r, "/ui/memories", http.StatusSeeOther)
}
