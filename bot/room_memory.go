package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// Each room is its own memory scope (DECISIONS.md, memory in rooms): the
// commands here show and change only the room's own memories.

// memoriesPerListing is how many memories `!ada memories` shows.
const memoriesPerListing = core.MaxMemoryLimit

// maxForgetAllPages bounds `!ada forget all` (20 memories a page).
const maxForgetAllPages = 500

// tagRemembered marks memories stored with `!ada remember`.
const tagRemembered = "remembered"

// lastAnswer is what the room's last answer used, for `!ada why`. It is
// kept in memory only: it holds the texts of the memories it used.
type lastAnswer struct {
	// questionEvent and replyEvent are the Matrix events of the exchange.
	questionEvent, replyEvent id.EventID
	question                  string
	asker                     string
	at                        time.Time
	used                      core.UsedContext
}

// dropWhy forgets the last answer kept for `!ada why` when it quotes what
// was just removed: the redacted question or reply (event), or a deleted
// memory, turn or summary (docIDs). `!ada why` must not bring back text a
// member took away.
func (rt *roomRuntime) dropWhy(event id.EventID, docIDs ...string) {
	la := rt.lastAnswer
	if la == nil {
		return
	}
	if event != "" && (event == la.questionEvent || event == la.replyEvent) {
		rt.lastAnswer = nil
		return
	}
	for _, items := range [][]core.ContextItem{la.used.Memories, la.used.Turns, la.used.Summaries} {
		for _, it := range items {
			if slices.Contains(docIDs, it.ID) {
				rt.lastAnswer = nil
				return
			}
		}
	}
}

func roomScope(room id.RoomID) string { return core.EntityScope(room.String()) }

// recordAnswer keeps what the answer used for `!ada why`, and links the
// stored turns to the Matrix events they came from, so that a redaction
// deletes them: the question's redaction removes both turns (the answer
// only exists because of it), the reply's removes the assistant's turn.
func (a *answerer) recordAnswer(ctx context.Context, question *event.Event, prompt, asker string, reply id.EventID, res core.ChatResult) {
	rt := a.rooms.get(question.RoomID)
	rt.lastAnswer = &lastAnswer{questionEvent: question.ID, replyEvent: reply,
		question: prompt, asker: asker, at: a.now(), used: res.UsedContext}
	if len(res.TurnIDs) != 2 {
		return // nothing stored (privacy mode)
	}
	user, assistant := res.TurnIDs[0], res.TurnIDs[1]
	links := []storage.BridgeLink{
		{EventID: question.ID.String(), DocID: user, Kind: storage.LinkTurn, ConversationID: res.ConversationID},
		{EventID: question.ID.String(), DocID: assistant, Kind: storage.LinkTurn, ConversationID: res.ConversationID},
	}
	if reply != "" {
		links = append(links, storage.BridgeLink{EventID: reply.String(), DocID: assistant, Kind: storage.LinkTurn, ConversationID: res.ConversationID})
	}
	if err := a.bridge.AddLinks(ctx, question.RoomID.String(), links, a.now()); err != nil {
		logFrom(ctx, a.log).Error("could not link the stored turns to their messages; a redaction will not remove them", "error", err)
	}
}

// messageBody is the text of a message event, "" for other events.
func messageBody(evt *event.Event) string {
	if c, ok := evt.Content.Parsed.(*event.MessageEventContent); ok {
		return c.Body
	}
	return ""
}

// cmdRemember stores what follows `!ada remember` as a memory of the room,
// named after the member who said it.
func (cs *commands) cmdRemember(ctx context.Context, c *commandEvent) (string, error) {
	if !cs.window.storageOn(c.room) {
		return "🔒 I can't remember anything here: " + cs.storageText(c.room) + ". A room moderator can turn storage on with `!ada privacy on`.", nil
	}
	text := strings.TrimSpace(c.raw)
	if text == "" {
		return "Usage: `!ada remember <text>`, for example `!ada remember the meeting is on Tuesdays`.", nil
	}
	name := cs.mx.displayName(ctx, c.evt.RoomID, c.evt.Sender)
	m, err := cs.backend.CreateMemory(ctx, core.MemoryInput{
		Text: name + ": " + text, Entity: c.evt.RoomID.String(), RoomID: c.evt.RoomID.String(),
		UserID: c.evt.Sender.String(), Source: core.SourceChat, Tags: []string{tagRemembered},
	})
	if core.KindOf(err) == core.KindInvalid || core.KindOf(err) == core.KindTooLarge {
		return "I could not remember that: " + core.SafeMessage(err), nil
	}
	if err != nil {
		return "", err
	}
	if m.Deduplicated != nil && *m.Deduplicated {
		// Not linked to this message: the memory came before it (maybe
		// from another member), and redacting this message must not take
		// it away.
		return fmt.Sprintf("🧠 I already knew that; refreshed: “%s”", m.Text), nil
	}
	link := []storage.BridgeLink{{EventID: c.evt.ID.String(), DocID: m.ID, Kind: storage.LinkMemory}}
	if err := cs.bridge.AddLinks(ctx, c.evt.RoomID.String(), link, cs.now()); err != nil {
		logFrom(ctx, cs.log).Error("could not link the memory to its message", "error", err)
	}
	return fmt.Sprintf("🧠 Remembered for this room: “%s”\n\n`!ada memories` lists what I keep here; `!ada forget` removes it.", m.Text), nil
}

// cmdMemories lists the room's memories, newest first and numbered; the
// numbers stay valid for `!ada forget` until the next listing.
func (cs *commands) cmdMemories(ctx context.Context, c *commandEvent) (string, error) {
	page, err := cs.roomMemories(ctx, c.evt.RoomID, "")
	if err != nil {
		return "", err
	}
	rt := cs.rooms.get(c.evt.RoomID)
	rt.listed = rt.listed[:0]
	if len(page.Items) == 0 {
		return "I keep no memories for this room. Tell me something with `!ada remember <text>`" + cs.autoMemoryHint(c.room) + ".", nil
	}
	var lines []string
	for i, m := range page.Items {
		rt.listed = append(rt.listed, m.ID)
		lines = append(lines, fmt.Sprintf("%d. %s — %s", i+1, oneLine(m.Text, 300), memoryOrigin(m)))
	}
	more := ""
	if page.Next != "" {
		more = fmt.Sprintf("\n\nThese are the newest %d; there are more.", len(page.Items))
	}
	return fmt.Sprintf("**What I remember in this room** (newest first)\n\n%s%s\n\n`!ada forget <number>` removes one.", strings.Join(lines, "\n"), more), nil
}

func (cs *commands) autoMemoryHint(s storage.BridgeRoom) string {
	if cs.window.storageOn(s) {
		return ", or just talk to me: I note lasting facts from our conversations"
	}
	return ""
}

// memoryOrigin says when and how a memory came about.
func memoryOrigin(m core.Memory) string {
	how := "saved"
	switch {
	case slices.Contains(m.Meta.Tags, core.TagAuto):
		how = "learned from the conversation"
	case slices.Contains(m.Meta.Tags, tagRemembered):
		how = "remembered on request"
	}
	return how + ", " + m.Meta.Timestamp.UTC().Format("2006-01-02")
}

func (cs *commands) roomMemories(ctx context.Context, room id.RoomID, cursor string) (core.MemoryPageResult, error) {
	return cs.backend.MemoryPage(ctx, core.MemoryQuery{Scope: roomScope(room), Limit: memoriesPerListing, Cursor: cursor})
}

// cmdForget deletes one memory of the room, by its number in the last
// listing or by id; `forget all` (moderators) deletes every one.
func (cs *commands) cmdForget(ctx context.Context, c *commandEvent) (string, error) {
	arg := strings.TrimSpace(c.raw)
	switch {
	case arg == "":
		return "Usage: `!ada forget <number>` (from `!ada memories`), `!ada forget <id>`, or `!ada forget all` (moderators).", nil
	case strings.EqualFold(arg, "all"):
		return cs.forgetAll(ctx, c)
	}
	memID, err := cs.memoryByRef(ctx, c.evt.RoomID, arg)
	if err != nil || memID == "" {
		return cs.forgetNotFound(arg), err
	}
	m, found, err := cs.roomMemory(ctx, c.evt.RoomID, memID)
	if err != nil {
		return "", err
	}
	if !found {
		return cs.forgetNotFound(arg), nil
	}
	if err := cs.backend.DeleteMemory(ctx, memID); err != nil && core.KindOf(err) != core.KindNotFound {
		return "", err
	}
	if err := cs.bridge.UnlinkDoc(ctx, c.evt.RoomID.String(), memID); err != nil {
		logFrom(ctx, cs.log).Error("could not unlink a forgotten memory", "error", err)
	}
	cs.rooms.get(c.evt.RoomID).dropWhy("", memID)
	logFrom(ctx, cs.log).Info("memory forgotten on request", "memory_id", memID, "by", c.evt.Sender.String())
	return fmt.Sprintf("🗑️ Forgotten: “%s”", oneLine(m.Text, 300)), nil
}

func (cs *commands) forgetNotFound(arg string) string {
	return fmt.Sprintf("This room has no memory %q. `!ada memories` lists them with their numbers.", arg)
}

// memoryByRef resolves a number of the last listing (listing the room now
// if it was never listed) or takes a memory id as it is.
func (cs *commands) memoryByRef(ctx context.Context, room id.RoomID, ref string) (string, error) {
	n, err := strconv.Atoi(ref)
	if err != nil {
		if core.ValidDocID(ref) {
			return ref, nil
		}
		return "", nil
	}
	rt := cs.rooms.get(room)
	if rt.listed == nil {
		page, err := cs.roomMemories(ctx, room, "")
		if err != nil {
			return "", err
		}
		for _, m := range page.Items {
			rt.listed = append(rt.listed, m.ID)
		}
	}
	if n < 1 || n > len(rt.listed) {
		return "", nil
	}
	return rt.listed[n-1], nil
}

// roomMemory gets the memory if it is one of the room's own, so that an id
// from another room is never deleted from here.
func (cs *commands) roomMemory(ctx context.Context, room id.RoomID, memID string) (core.Memory, bool, error) {
	m, err := cs.backend.GetMemory(ctx, memID)
	switch {
	case core.KindOf(err) == core.KindNotFound:
		return core.Memory{}, false, nil
	case err != nil:
		return core.Memory{}, false, err
	}
	return m, m.Meta.Scope == roomScope(room), nil
}

// forgetAll deletes every memory of the room, for moderators only.
func (cs *commands) forgetAll(ctx context.Context, c *commandEvent) (string, error) {
	level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
	if err != nil {
		return "", err
	}
	if level < moderatorLevel {
		return fmt.Sprintf("Only room moderators (power level %d or more) can make me forget everything; your level is %d. `!ada forget <number>` removes one memory.", moderatorLevel, level), nil
	}
	n := 0
	for range maxForgetAllPages {
		// Always the first page: what was deleted is gone from it.
		page, err := cs.roomMemories(ctx, c.evt.RoomID, "")
		if err != nil {
			return "", err
		}
		if len(page.Items) == 0 {
			break
		}
		for _, m := range page.Items {
			if err := cs.backend.DeleteMemory(ctx, m.ID); err != nil && core.KindOf(err) != core.KindNotFound {
				return "", fmt.Errorf("forget all, after %d: %w", n, err)
			}
			n++
		}
	}
	if err := cs.bridge.UnlinkKind(ctx, c.evt.RoomID.String(), storage.LinkMemory); err != nil {
		logFrom(ctx, cs.log).Error("could not unlink the forgotten memories", "error", err)
	}
	rt := cs.rooms.get(c.evt.RoomID)
	rt.listed, rt.lastAnswer = nil, nil
	logFrom(ctx, cs.log).Info("all room memories forgotten on request", "count", n, "by", c.evt.Sender.String())
	if n == 0 {
		return "This room had no memories; nothing to forget.", nil
	}
	return fmt.Sprintf("🗑️ Forgot all %d memories of this room.", n), nil
}

// cmdWhy shows what the room's last answer used, each item with its date,
// score and why it was chosen.
func (cs *commands) cmdWhy(_ context.Context, c *commandEvent) (string, error) {
	last := cs.rooms.get(c.evt.RoomID).lastAnswer
	if last == nil {
		return "I have not answered in this room since I started, so there is nothing to explain yet.", nil
	}
	u := last.used
	var out strings.Builder
	fmt.Fprintf(&out, "**What my last answer used** (to %s, %s: “%s”)\n", last.asker, last.at.UTC().Format("2006-01-02 15:04 UTC"), oneLine(last.question, 120))
	section := func(title string, items []core.ContextItem, line func(core.ContextItem) string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&out, "\n%s (%d):\n", title, len(items))
		for i, it := range items {
			fmt.Fprintf(&out, "%d. %s\n", i+1, line(it))
		}
	}
	section("Memories", u.Memories, func(it core.ContextItem) string {
		return fmt.Sprintf("“%s” — saved %s · score %s · %s", oneLine(it.Text, 200), dateOf(it.Timestamp), num(it.Score), whyChosen(it))
	})
	var recalled, recent []core.ContextItem
	for _, t := range u.Turns {
		if t.Reason == core.ReasonRecalled || t.Reason == core.ReasonNeighbour {
			recalled = append(recalled, t)
		} else {
			recent = append(recent, t)
		}
	}
	section("Recalled from earlier in the conversation", recalled, func(it core.ContextItem) string {
		if it.Reason == core.ReasonNeighbour {
			return fmt.Sprintf("%s, %s: “%s” · next to a recalled message", roleName(it.Role), dateOf(it.Timestamp), oneLine(it.Text, 160))
		}
		return fmt.Sprintf("%s, %s: “%s” · score %s · %s", roleName(it.Role), dateOf(it.Timestamp), oneLine(it.Text, 160), num(it.Score), whyChosen(it))
	})
	section("Summaries", u.Summaries, func(it core.ContextItem) string {
		return fmt.Sprintf("turns %s, %s · %s", it.TurnRange, dateOf(it.Timestamp), summaryWhy(it))
	})
	section("FAQ", u.FAQs, func(it core.ContextItem) string {
		return fmt.Sprintf("“%s” · similarity %s · %s", oneLine(it.Text, 120), num(it.Similarity), whyChosen(it))
	})
	if len(recent) > 0 {
		fmt.Fprintf(&out, "\nThe %d most recent turns of this conversation, as they were.\n", len(recent))
	}
	if len(u.Memories)+len(recalled)+len(u.Summaries)+len(u.FAQs) == 0 {
		out.WriteString("\nNo memory, recalled turn, summary or FAQ: only the recent conversation and this room's messages.\n")
	}
	return strings.TrimSpace(out.String()), nil
}

func roleName(role string) string {
	if role == "assistant" {
		return "my answer"
	}
	return "a message"
}

func summaryWhy(it core.ContextItem) string {
	if it.Reason == core.ReasonRecalled {
		return fmt.Sprintf("score %s · %s", num(it.Score), whyChosen(it))
	}
	return "the latest summary of this conversation"
}

// whyChosen turns a search's explanation into words: by meaning, by the
// words it shares with the question, or both.
func whyChosen(it core.ContextItem) string {
	ex := it.Explain
	if ex == nil {
		return "recent"
	}
	var why []string
	if ex.VectorRank != nil {
		why = append(why, fmt.Sprintf("close in meaning (similarity %.2f, rank %d)", ex.Similarity, *ex.VectorRank))
	}
	if ex.KeywordRank != nil {
		why = append(why, fmt.Sprintf("shares words with the question (keyword rank %d)", *ex.KeywordRank))
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("relevance %.2f", ex.Relevance))
	}
	s := strings.Join(why, " and ")
	if ex.ImportanceTerm != nil && it.Importance > 0 {
		s += fmt.Sprintf("; importance %d/5", it.Importance)
	}
	return s
}

func num(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}

// dateOf shows the date of an ISO 8601 timestamp.
func dateOf(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	if len(ts) >= 10 {
		return ts[:10]
	}
	return "unknown date"
}

// oneLine flattens text to one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
