package bot

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"strings"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

// webLinkTTL is how long a member's link to the memory page works, and
// webLinkEvery how often a member may ask for one (no DM flood).
const (
	webLinkTTL   = 15 * time.Minute
	webLinkEvery = time.Minute
)

// webDMKey is the bridge_state key of the direct chat Ada made with a
// member to send them links, reused for the next link.
func webDMKey(user id.UserID) string { return "web_dm:" + user.String() }

// webLinks is `!ada web`: a one-time link to the memory page (/ui/), sent
// to the member who asked in a direct chat, never in a shared room. The
// link itself is never logged, nor posted anywhere but that chat.
type webLinks struct {
	mx     *matrix
	bridge *storage.Bridge
	// publicURL is PUBLIC_URL; pageServed says the memory page runs in this
	// process (`ada up`), not a bridge alone (`ada bot`).
	publicURL  string
	pageServed bool
	// queue is the room queue (set by Run): the link is sent as a job of
	// the direct chat, which owns that room's runtime state.
	queue *roomqueue.Queue
	now   func() time.Time
	log   *slog.Logger
}

// cmdWeb issues a link and sends it by direct message. In a direct chat
// with the member it is the command's reply; elsewhere the room only hears
// that it was sent.
func (w *webLinks) cmdWeb(ctx context.Context, c *commandEvent) (string, error) {
	if !w.pageServed {
		return "The memory page is not served here: this bridge runs on its own (`ada bot`), and the page runs where Ada's API runs (`ada up`). Ask the operator to run `ada up` to get links.", nil
	}
	if w.publicURL == "" {
		return "I can't send you a link to the memory page yet: the operator must set `PUBLIC_URL` to the address people reach Ada at (for example `https://ada.example.org`).", nil
	}
	member := c.evt.Sender
	token, ok, err := w.bridge.IssueWebLogin(ctx, member.String(), w.now(), webLinkTTL, webLinkEvery)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("I sent you a link less than a minute ago; it works for %d minutes. Ask again in a minute if it did not arrive.", int(webLinkTTL.Minutes())), nil
	}
	if w.closedDM(ctx, c.evt.RoomID) {
		sent, err := w.mx.sendSecret(ctx, c.evt.RoomID, w.linkMessage(token, c.evt))
		if err != nil {
			w.withdraw(ctx, token)
			return "", fmt.Errorf("send the link: %w", err)
		}
		linkReplies(ctx, w.bridge, w.log, c.evt, []id.EventID{sent}, w.now())
		return "", nil // the link was the reply
	}
	dm, err := w.directChat(ctx, member)
	if err != nil {
		w.withdraw(ctx, token)
		return "", err
	}
	// The command's context ends with its job; the send keeps its logger.
	undelivered := func(ctx context.Context) { w.withdraw(ctx, token) }
	w.queue.Enqueue(dm, roomqueue.Job{Name: "web-link", Ctx: context.WithoutCancel(ctx), Run: func(ctx context.Context) error {
		if _, err := w.mx.sendSecret(ctx, dm, w.linkMessage(token, nil)); err != nil {
			w.withdraw(ctx, token)
			return fmt.Errorf("send the memory page link by direct message: %w", err)
		}
		return nil
	}, OnDrop: undelivered, OnStop: undelivered})
	return fmt.Sprintf("📬 I sent you a one-time link to the memory page by direct message (it works once, for %d minutes).", int(webLinkTTL.Minutes())), nil
}

// cmdLogout is `!ada web logout`: every memory page session of the member
// ends at its next request, wherever it was opened, and their unused links
// are withdrawn. It works in any room: it only takes access away.
func (w *webLinks) cmdLogout(ctx context.Context, c *commandEvent) (string, error) {
	if err := w.bridge.EndWebSessions(ctx, c.evt.Sender.String()); err != nil {
		return "", err
	}
	logFrom(ctx, w.log).Info("memory page sessions ended on request")
	return "🚪 Your memory page sessions are ended, on every device, and your unused links no longer work. `!ada web` gets you a new link.", nil
}

// closedDM reports a direct chat (Ada and one member, isDM) that nobody
// else can join without an invitation: there the link may be the reply, as
// a later member cannot read it in the history while it works.
func (w *webLinks) closedDM(ctx context.Context, room id.RoomID) bool {
	if !w.mx.isDM(ctx, room) {
		return false
	}
	jr, err := w.mx.cli.StateStore.GetJoinRules(ctx, room)
	return err == nil && jr != nil && (jr.JoinRule == event.JoinRuleInvite || jr.JoinRule == event.JoinRulePrivate)
}

// linkMessage is the direct message holding the link; a reply to the
// command when it was given in the direct chat.
func (w *webLinks) linkMessage(token string, replyTo *event.Event) *event.MessageEventContent {
	link := strings.TrimRight(w.publicURL, "/") + "/ui/login/" + token
	intro := "Here is your link to see what I remember about you and your rooms:"
	warn := fmt.Sprintf("It works once, for %d minutes. Do not share it: whoever opens it sees what you may see.", int(webLinkTTL.Minutes()))
	c := &event.MessageEventContent{
		MsgType:       event.MsgNotice,
		Body:          intro + "\n" + link + "\n\n" + warn,
		Format:        event.FormatHTML,
		FormattedBody: fmt.Sprintf("<p>%s<br><a href=\"%s\">%s</a></p><p>%s</p>", html.EscapeString(intro), html.EscapeString(link), html.EscapeString(link), html.EscapeString(warn)),
		Mentions:      &event.Mentions{},
	}
	if replyTo != nil {
		relateTo(c, replyTo, true)
	}
	return c
}

// withdraw drops a token that did not reach its member, so that it cannot
// be used and the member may ask again at once; also when the send failed
// because the bridge is stopping.
func (w *webLinks) withdraw(ctx context.Context, token string) {
	if err := w.bridge.DropWebLogin(context.WithoutCancel(ctx), token); err != nil {
		logFrom(ctx, w.log).Error("could not withdraw an undelivered memory page link", "error", err)
	}
}

// directChat returns the direct chat Ada made with the member for links
// when it is still one (Ada joined, the member joined or invited, nobody
// else), or makes a new one: private, marked direct, encrypted when Ada
// has encryption.
func (w *webLinks) directChat(ctx context.Context, member id.UserID) (id.RoomID, error) {
	key := webDMKey(member)
	known, err := w.bridge.State(ctx, key)
	if err != nil {
		return "", err
	}
	if room := id.RoomID(known); room != "" && w.stillDirect(ctx, room, member) {
		return room, nil
	}
	req := &mautrix.ReqCreateRoom{Preset: "trusted_private_chat", IsDirect: true, Invite: []id.UserID{member}}
	if w.mx.crypto != nil {
		req.InitialState = []*event.Event{{Type: event.StateEncryption,
			Content: event.Content{Parsed: &event.EncryptionEventContent{Algorithm: id.AlgorithmMegolmV1}}}}
	}
	resp, err := w.mx.cli.CreateRoom(ctx, req)
	if err != nil {
		return "", fmt.Errorf("create a direct chat with the member: %w", err)
	}
	logFrom(ctx, w.log).Info("created a direct chat for memory page links", "dm_room", resp.RoomID.String())
	return resp.RoomID, w.bridge.SetState(ctx, key, resp.RoomID.String())
}

// stillDirect reads the state store (kept current by sync) only: this runs
// in another room's job, and the direct chat's runtime is its own.
func (w *webLinks) stillDirect(ctx context.Context, room id.RoomID, member id.UserID) bool {
	store := w.mx.cli.StateStore
	if !store.IsMembership(ctx, room, w.mx.cli.UserID, event.MembershipJoin) ||
		!store.IsMembership(ctx, room, member, event.MembershipJoin, event.MembershipInvite) {
		return false
	}
	members, err := store.GetRoomJoinedOrInvitedMembers(ctx, room)
	return err == nil && len(members) == 2
}
