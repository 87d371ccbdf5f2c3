package ui

import (
	"context"
	"time"

	"github.com/ada-chat/ada/core"
)

// A member's page session outlives a restart (issue 40 item 5): the page
// holds sessions in memory, and writes a member's to the bridge's state
// too (SessionKeeper), by the hash of its id only. A session the memory
// does not hold is looked for there; the operator's sessions (API key)
// are not kept, as before.

// SessionKeeper keeps members' page sessions over restarts; the bridge
// (Members) is one. Implementations store a hash of sessionID, never
// sessionID itself.
type SessionKeeper interface {
	KeepSession(ctx context.Context, sessionID, userID, epoch string, expires, seen time.Time) error
	// KeptSession returns a kept session, expired or not; core.KindNotFound when none is kept.
	KeptSession(ctx context.Context, sessionID string) (userID, epoch string, expires, seen time.Time, err error)
	DropSession(ctx context.Context, sessionID string) error
}

// keepEvery bounds the writes of a member session's last use: at most one
// a minute, so that an idle session ends at most a minute early after a
// restart.
const keepEvery = time.Minute

const memberSessionExpired = "Your memory page session has expired. Send “!ada web” in your room for a new link."

// session finds the session with this id: in memory, else a member's kept
// one, brought back if it is still live. Its use is written at most once
// every keepEvery.
func (p *page) session(ctx context.Context, id string) (session, found) {
	now := p.opt.Now()
	s, f := p.sessions.get(id, now)
	if f == foundNone && p.keeper != nil {
		s, f = p.kept(ctx, id, now)
	}
	if f == foundLive && s.user != "" && now.Sub(s.saved) >= keepEvery {
		p.keep(ctx, s)
		p.sessions.markSaved(s.id, now)
	}
	return s, f
}

// kept brings back a member's session from the bridge's state.
func (p *page) kept(ctx context.Context, id string, now time.Time) (session, found) {
	user, epoch, expires, seen, err := p.keeper.KeptSession(ctx, id)
	if err != nil {
		if core.KindOf(err) != core.KindNotFound {
			p.opt.Log.Warn("memory page: could not read a kept member session", "err", err)
		}
		return session{}, foundNone
	}
	s := session{id: id, csrf: csrfOf(id), expires: expires, seen: seen, user: user, epoch: epoch, saved: seen}
	if user == "" {
		return session{}, foundNone
	}
	if !s.live(now) {
		return session{}, foundMemberEnded
	}
	s.seen = now
	p.sessions.put(now, s)
	return s, foundLive
}

// keep writes a member's session (new, or its last use); a failure is
// logged: the session still works until the next restart.
func (p *page) keep(ctx context.Context, s session) {
	if s.user == "" || p.keeper == nil {
		return
	}
	if err := p.keeper.KeepSession(ctx, s.id, s.user, s.epoch, s.expires, s.seen); err != nil {
		p.opt.Log.Warn("memory page: could not keep a member session over restarts", "err", err)
	}
}

// drop ends a session, in memory and kept.
func (p *page) drop(ctx context.Context, id string) {
	p.sessions.drop(id)
	if p.keeper == nil {
		return
	}
	if err := p.keeper.DropSession(ctx, id); err != nil {
		p.opt.Log.Warn("memory page: could not drop a kept member session", "err", err)
	}
}
