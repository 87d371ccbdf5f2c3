package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// Quotas are the operator's fair-use limits; 0 is unlimited. A member's
// quotas count their answers in every room, a room's those of its members.
// Answers are counted over the last hour, tokens (the model's own count,
// prompt and answer) over the last day, both as sliding windows.
type Quotas struct {
	MemberAnswersPerHour, RoomAnswersPerHour int
	MemberTokensPerDay, RoomTokensPerDay     int
	// ExemptModerators: members with power level moderatorLevel or more
	// are answered over the quotas (their answers still count), except in
	// a room of two, a direct chat, where the member is moderator of their
	// own room.
	ExemptModerators bool
}

// on reports whether any quota is set; without one nothing is counted.
func (q Quotas) on() bool {
	return q.MemberAnswersPerHour > 0 || q.RoomAnswersPerHour > 0 || q.MemberTokensPerDay > 0 || q.RoomTokensPerDay > 0
}

// The quota windows.
const (
	answerWindow = time.Hour
	tokenWindow  = 24 * time.Hour
)

// quotaHit is a quota a question would go over: whose (the member's or
// the room's), which, and when enough of it is free again.
type quotaHit struct {
	room   bool
	what   string // "answers an hour", "model tokens a day"
	limit  int
	resets time.Time
}

// quotaCheck finds the quotas member's next question would go over, given
// the room's counted answers and the member's in every room, of the last
// tokenWindow (oldest first); the hit that resets last is the one that
// holds the member back.
func quotaCheck(q Quotas, room, mine []storage.BridgeUsage, now time.Time) (quotaHit, bool) {
	var hit quotaHit
	found := false
	consider := func(h quotaHit, over bool) {
		if over && (!found || h.resets.After(hit.resets)) {
			hit, found = h, true
		}
	}
	h, over := answersOver(mine, q.MemberAnswersPerHour, now)
	consider(h, over)
	h, over = tokensOver(mine, q.MemberTokensPerDay, now)
	consider(h, over)
	h, over = answersOver(room, q.RoomAnswersPerHour, now)
	h.room = true
	consider(h, over)
	h, over = tokensOver(room, q.RoomTokensPerDay, now)
	h.room = true
	consider(h, over)
	return hit, found
}

// answersOver: limit answers in the last hour are used up; one is free
// again when the oldest that must go has left the window.
func answersOver(use []storage.BridgeUsage, limit int, now time.Time) (quotaHit, bool) {
	if limit <= 0 {
		return quotaHit{}, false
	}
	var recent []time.Time
	for _, u := range use {
		if !u.Time.Before(now.Add(-answerWindow)) {
			recent = append(recent, u.Time)
		}
	}
	if len(recent) < limit {
		return quotaHit{}, false
	}
	return quotaHit{what: "answers an hour", limit: limit, resets: recent[len(recent)-limit].Add(answerWindow)}, true
}

// tokensOver: the tokens of the last day reach limit; the quota is free
// again once enough of the oldest answers have left the window.
func tokensOver(use []storage.BridgeUsage, limit int, now time.Time) (quotaHit, bool) {
	if limit <= 0 {
		return quotaHit{}, false
	}
	total := 0
	for _, u := range use {
		total += u.Tokens
	}
	if total < limit {
		return quotaHit{}, false
	}
	resets := now.Add(tokenWindow)
	for _, u := range use {
		total -= u.Tokens
		if total < limit {
			resets = u.Time.Add(tokenWindow)
			break
		}
	}
	return quotaHit{what: "model tokens a day", limit: limit, resets: resets}, true
}

// quotas counts each room's answers and holds members and rooms to the
// operator's Quotas, with one notice per member (or room) and quota window.
type quotas struct {
	limits  Quotas
	bridge  *storage.Bridge
	mx      *matrix
	notices quotaNotices
	now     func() time.Time
	log     *slog.Logger
}

// admit decides, in the room's job, whether the question of evt may be
// answered. If so it is counted (usage is its count's id, 0 when nothing
// is counted); if not, the member gets one notice for this quota window
// and nothing else: no reaction, no model call.
func (qs *quotas) admit(ctx context.Context, evt *event.Event) (usage int64, ok bool) {
	if !qs.limits.on() {
		return 0, true
	}
	now, log := qs.now(), logFrom(ctx, qs.log)
	hit, over, err := qs.check(ctx, evt.RoomID, evt.Sender, now)
	if err != nil {
		// A broken counter must not silence the bot.
		log.Error("could not read the usage; answering without the quotas", "error", err)
		return 0, true
	}
	if over && !qs.exempt(ctx, evt) {
		log.Info("quota reached; not answering", "room_quota", hit.room, "quota", hit.what, "resets", hit.resets)
		qs.notify(ctx, evt, hit)
		return 0, false
	}
	id, err := qs.bridge.AddUsage(ctx, evt.RoomID.String(), evt.Sender.String(), now, now.Add(-tokenWindow))
	if err != nil {
		log.Error("could not count an answer", "error", err)
		return 0, true
	}
	return id, true
}

// check reads the room's usage and the member's in every room, and finds
// the quota the member's next question in the room would go over.
func (qs *quotas) check(ctx context.Context, room id.RoomID, member id.UserID, now time.Time) (quotaHit, bool, error) {
	roomUse, err := qs.bridge.UsageSince(ctx, room.String(), now.Add(-tokenWindow))
	if err != nil {
		return quotaHit{}, false, err
	}
	mine, err := qs.bridge.MemberUsageSince(ctx, member.String(), now.Add(-tokenWindow))
	if err != nil {
		return quotaHit{}, false, err
	}
	hit, over := quotaCheck(qs.limits, roomUse, mine, now)
	return hit, over, nil
}

// exempt reports whether the asker is a moderator the operator exempts.
func (qs *quotas) exempt(ctx context.Context, evt *event.Event) bool {
	if !qs.limits.ExemptModerators {
		return false
	}
	level, err := qs.mx.powerLevel(ctx, evt.RoomID, evt.Sender)
	if err != nil {
		return false
	}
	members, err := qs.mx.joinedMembers(ctx, evt.RoomID)
	return err == nil && exemptAs(qs.limits, level, len(members))
}

// exemptAs is the exemption of a member of power level in a room of
// members joined (Ada included). Whoever makes a room with Ada alone is
// its moderator: a room of two exempts no one, or every member could
// exempt themselves by asking in a direct chat.
func exemptAs(q Quotas, level, members int) bool {
	return q.ExemptModerators && level >= moderatorLevel && members > 2
}

// notify posts the quota notice, once per member (or room, for a room
// quota) until the quota resets.
func (qs *quotas) notify(ctx context.Context, evt *event.Event, hit quotaHit) {
	who := evt.Sender
	if hit.room {
		who = ""
	}
	if !qs.notices.due(evt.RoomID, who, hit.resets, qs.now()) {
		return
	}
	if _, err := qs.mx.sendNotice(ctx, evt, quotaText(hit, qs.now())); err != nil {
		logFrom(ctx, qs.log).Error("could not post the quota notice", "error", err)
	}
}

// quotaText says plainly which quota is reached and when it resets.
func quotaText(hit quotaHit, now time.Time) string {
	reached, who := fmt.Sprintf("You have reached your quota of %d %s, counted in all rooms together", hit.limit, hit.what), "you"
	if hit.room {
		reached, who = fmt.Sprintf("This room has reached its quota of %d %s", hit.limit, hit.what), "anyone here"
	}
	wait := hit.resets.Sub(now).Round(time.Minute)
	if wait < time.Minute {
		wait = time.Minute
	}
	return fmt.Sprintf("⏳ %s, so I will not answer %s until %s UTC (in %s). "+
		"I will not repeat this notice until then; commands still work.",
		reached, who, hit.resets.UTC().Format("15:04"), durationWords(wait))
}

// durationWords is "1 h 5 min" or "12 min".
func durationWords(d time.Duration) string {
	h, m := int(d.Hours()), int(d.Minutes())%60
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d min", m)
}

// settle records what an answer cost once it is made: the model's tokens,
// or, when it failed, no answer at all. A failure caused by the model
// provider must not use up a member's quota.
func (qs *quotas) settle(ctx context.Context, usage int64, tokens int, failed bool) {
	if usage == 0 {
		return
	}
	var err error
	if failed {
		err = qs.bridge.DropUsage(ctx, usage)
	} else {
		err = qs.bridge.SetUsageTokens(ctx, usage, tokens)
	}
	if err != nil {
		logFrom(ctx, qs.log).Error("could not record an answer's usage", "error", err)
	}
}

// roomUse is `!ada status`'s line on the room's use and its quotas.
func (qs *quotas) roomUse(ctx context.Context, room id.RoomID) string {
	if !qs.limits.on() {
		return "no quotas on this bridge"
	}
	now := qs.now()
	use, err := qs.bridge.UsageSince(ctx, room.String(), now.Add(-tokenWindow))
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	answers, tokens := 0, 0
	for _, u := range use {
		if !u.Time.Before(now.Add(-answerWindow)) {
			answers++
		}
		tokens += u.Tokens
	}
	// Use is counted only while quotas are on: say so, or a room that
	// asked much before looks idle.
	return fmt.Sprintf("%s in the last hour%s, %s in the last day%s (counted while quotas are on); per member, over all rooms: %s answers an hour, %s tokens a day",
		plural(answers, "answer", "answers"), limitText(qs.limits.RoomAnswersPerHour), plural(tokens, "model token", "model tokens"), limitText(qs.limits.RoomTokensPerDay),
		limitOr(qs.limits.MemberAnswersPerHour), limitOr(qs.limits.MemberTokensPerDay))
}

func limitText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (of %d)", n)
}

func limitOr(n int) string {
	if n <= 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}

// quotaNotices remembers, per room and member ("" for the room), until
// when the last quota notice holds. It lives in memory: after a restart a
// member over quota gets the notice once more. Safe from any goroutine.
type quotaNotices struct {
	mu    sync.Mutex
	until map[quotaKey]time.Time
}

type quotaKey struct {
	room   id.RoomID
	member id.UserID
}

// due reports whether a notice may be posted now, and if so records that
// it holds until resets.
func (n *quotaNotices) due(room id.RoomID, member id.UserID, resets, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := quotaKey{room, member}
	if until, ok := n.until[k]; ok && now.Before(until) {
		return false
	}
	if n.until == nil {
		n.until = make(map[quotaKey]time.Time)
	}
	for key, until := range n.until { // keep the map small
		if !now.Before(until) {
			delete(n.until, key)
		}
	}
	n.until[k] = resets
	return true
}

// rateLimitedText is the notice for the model provider's own rate limit
// (HTTP 429), which is not Ada's quota: it passes within minutes.
const rateLimitedText = "the language model's provider is rate-limiting me right now (HTTP 429). Please try again in a minute or two."

// rateLimited reports a model failure that is the provider's HTTP 429,
// as the LLM clients word it (core/internal/remote).
func rateLimited(err error) bool {
	msg := core.SafeMessage(err)
	return strings.Contains(msg, "HTTP 429") || strings.Contains(msg, "rate-limiting")
}
