package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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

func roomScope(room id.RoomID) string { return core.EntityScope(room.String()) }

// cmdRemember stores what follows `!ada remember` as a memory of the room,
// named after the member who said it: the text with their name as the room
// shows it (with their user id where another member goes by the name,
// roster.go), the metadata with their user id, which decides who may
// change it (core.Actor) and which no one else can take; a member it names
// is its subject.
func (cs *commands) cmdRemember(ctx context.Context, c *commandEvent) (string, error) {
	if !cs.window.storageOn(c.room) {
		return "🔒 I can't remember anything here. " + cs.opts.storageSentence(c.room) + " A room moderator can start storing again with `!ada storage on`.", nil
	}
	// Stored as it is shown: one line, single spaces (issue 27).
	text := strings.Join(strings.Fields(c.raw), " ")
	if text == "" {
		return "Usage: `!ada remember <text>`, for example `!ada remember the meeting is on Tuesdays`.", nil
	}
	said := text
	members := cs.mx.roster(ctx, c.evt.RoomID)
	name := cs.mx.labelIn(ctx, members.Labels(), c.evt.RoomID, c.evt.Sender)
	// A member the text names is its subject, by extraction's rule
	// (issue 40 item 4): they may forget it, and `!ada forget me` takes it.
	subject := members.Named(text, c.evt.Sender.String(), cs.mx.cli.UserID.String())
	text = name + ": " + text
	if n := utf8.RuneCountInString(text); n > core.MaxMemoryText {
		return fmt.Sprintf("That is too long for me to remember: a memory can be at most %d characters, and this one has %d "+
			"(with your name). Please send a shorter version.", core.MaxMemoryText, n), nil
	}
	m, err := cs.backend.CreateMemory(ctx, core.MemoryInput{
		Text: text, Entity: c.evt.RoomID.String(), RoomID: c.evt.RoomID.String(),
		UserID: c.evt.Sender.String(), SubjectUserID: subject, Source: core.SourceChat, Tags: []string{tagRemembered},
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
		return fmt.Sprintf("🧠 I already knew that (`%s`); refreshed: “%s”", shortID(m.ID), excerpt(said)), nil
	}
	link := []storage.BridgeLink{{EventID: c.evt.ID.String(), DocID: m.ID, Kind: storage.LinkMemory}}
	if err := cs.bridge.AddLinks(ctx, c.evt.RoomID.String(), link, cs.now()); err != nil {
		logFrom(ctx, cs.log).Error("could not link the memory to its message", "error", err)
	}
	// Only an excerpt: the member's message may hold a secret, and a
	// redaction of it must not leave the secret in Ada's reply (issue 27).
	// Of what they said, not of their name (issue 40 item 15).
	return fmt.Sprintf("🧠 Remembered for this room: “%s” (`%s`)\n\n`!ada memories` lists what I keep here; `!ada forget %s` removes it.",
		excerpt(said), shortID(m.ID), shortID(m.ID)), nil
}

// cmdMemories lists the room's memories, newest first, numbered and with
// their short ids; the numbers stay valid for the member's `!ada forget`
// until that member's next listing.
func (cs *commands) cmdMemories(ctx context.Context, c *commandEvent) (string, error) {
	page, err := cs.roomMemories(ctx, c.evt.RoomID, "")
	if err != nil {
		return "", err
	}
	listed := cs.setListing(c.evt.RoomID, c.evt.Sender, page.Items)
	if len(listed) == 0 {
		return "I keep no memories for this room. Tell me something with `!ada remember <text>`" + cs.autoMemoryHint(c.room) + ".", nil
	}
	labels := cs.mx.roster(ctx, c.evt.RoomID).Labels()
	var lines []string
	for i, m := range page.Items {
		lines = append(lines, fmt.Sprintf("%d. %s — %s · `%s`", i+1, oneLine(listedText(labels, m), 300), memoryOrigin(m), shortID(m.ID)))
	}
	more := ""
	if page.Next != "" {
		more = fmt.Sprintf("\n\nThese are the newest %d; there are more.", len(page.Items))
	}
	return fmt.Sprintf("**What I remember in this room** (newest first)\n\n%s%s\n\n`!ada forget <number>` or `!ada forget <id>` removes one.", strings.Join(lines, "\n"), more), nil
}

// setListing records the numbers a member was shown.
func (cs *commands) setListing(room id.RoomID, member id.UserID, mems []core.Memory) []string {
	rt := cs.rooms.get(room)
	if rt.listed == nil {
		rt.listed = make(map[id.UserID][]string)
	}
	ids := make([]string, 0, len(mems))
	for _, m := range mems {
		ids = append(ids, m.ID)
	}
	rt.listed[member] = ids
	return ids
}

// shortIDLen is how many hex digits of a memory's id `!ada memories` shows
// and `!ada forget` accepts: random (UUIDv4), so unique within a room.
const shortIDLen = 8

// shortID is a memory's id as members see it: "doc-1a2b3c4d-…" → "1a2b3c4d".
func shortID(docID string) string {
	s := strings.TrimPrefix(docID, "doc-")
	if len(s) > shortIDLen {
		s = s[:shortIDLen]
	}
	return s
}

// listedText is a memory's text as `!ada memories` shows it: a remembered
// one names its teller as the room reads the name now, with the user id
// if another member has taken the name since (issue 40 item 3); labels
// are the room's.
func listedText(labels core.Labels, m core.Memory) string {
	if !slices.Contains(m.Meta.Tags, tagRemembered) || m.Meta.UserID == "" {
		return m.Text
	}
	name, said, ok := strings.Cut(m.Text, ": ")
	if !ok || strings.HasSuffix(name, ")") { // labelled when it was stored
		return m.Text
	}
	return labels.Of(name, m.Meta.UserID) + ": " + said
}

// saidText is a memory's text without the "Name: " that `!ada remember`
// puts before what the member said.
func saidText(m core.Memory) string {
	if !slices.Contains(m.Meta.Tags, tagRemembered) {
		return m.Text
	}
	if _, said, ok := strings.Cut(m.Text, ": "); ok {
		return said
	}
	return m.Text
}

// excerpt is the start of a text a confirmation may show, so that a secret
// told to Ada is not posted again in full: half of its words (rounded up),
// at most excerptWords, so never all of them; of a single word, its first
// third.
func excerpt(s string) string {
	const excerptWords = 4
	words := strings.Fields(s)
	switch len(words) {
	case 0:
		return ""
	case 1:
		r := []rune(words[0])
		return oneLine(string(r[:len(r)/3]), 40) + "…"
	}
	n := min(excerptWords, len(words)/2+len(words)%2)
	return oneLine(strings.Join(words[:n], " "), 40) + "…"
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

// cmdForget deletes one memory of the room, by its number in the member's
// last listing, its short id or its id, if it is the member's to forget
// (commands_forget_who.go); `forget all` (moderators) deletes every one.
// Forgetting a memory that is gone says so.
func (cs *commands) cmdForget(ctx context.Context, c *commandEvent) (string, error) {
	arg := strings.Trim(strings.TrimSpace(c.raw), "`")
	switch {
	case arg == "":
		return "Usage: `!ada forget <number>` (from `!ada memories`), `!ada forget <id>`, `!ada forget me`, or (moderators) `!ada forget @user` and `!ada forget all`.", nil
	case strings.EqualFold(arg, "all"):
		return cs.forgetAll(ctx, c)
	case isPersonRef(arg):
		return cs.forgetPerson(ctx, c, arg)
	}
	memID, err := cs.memoryByRef(ctx, c.evt.RoomID, c.evt.Sender, arg)
	if errors.Is(err, errNotListed) {
		return fmt.Sprintf("I have not shown you a numbered list here yet, so I do not know which memory %s is. "+
			"`!ada memories` lists them with their numbers; `!ada forget <id>` works without a list.", arg), nil
	}
	if err != nil {
		return "", err
	}
	rt := cs.rooms.get(c.evt.RoomID)
	if memID == "" {
		return cs.forgetNotFound(arg), nil
	}
	m, found, err := cs.roomMemory(ctx, c.evt.RoomID, memID)
	switch {
	case err != nil:
		return "", err
	case !found && (rt.forgotten[memID] || cs.wasListed(rt, memID)):
		return fmt.Sprintf("Memory %s (`%s`) is already gone; nothing to forget. `!ada memories` lists what I keep now.", arg, shortID(memID)), nil
	case !found:
		return cs.forgetNotFound(arg), nil
	}
	if ok, err := cs.mayForget(ctx, c, m); err != nil || !ok {
		return notYoursToForget, err
	}
	if err := cs.backend.DeleteMemory(ctx, memID, forgetReason); err != nil && core.KindOf(err) != core.KindNotFound {
		return "", err
	}
	if err := cs.bridge.UnlinkDoc(ctx, c.evt.RoomID.String(), memID); err != nil {
		logFrom(ctx, cs.log).Error("could not unlink a forgotten memory", "error", err)
	}
	if rt.forgotten == nil {
		rt.forgotten = make(map[string]bool)
	}
	rt.forgotten[memID] = true
	dropWhy(ctx, cs.bridge, cs.rooms, cs.log, c.evt.RoomID, "", memID)
	logFrom(ctx, cs.log).Info("memory forgotten on request", "memory_id", memID, "by", c.evt.Sender.String())
	// Only an excerpt: the memory may hold a secret (issue 27).
	return fmt.Sprintf("🗑️ Forgotten: “%s” (`%s`)", excerpt(saidText(m)), shortID(memID)), nil
}

// wasListed reports whether a member was shown the memory in a listing of
// this process: it existed, so its absence now means it is gone.
func (cs *commands) wasListed(rt *roomRuntime, memID string) bool {
	for _, ids := range rt.listed {
		if slices.Contains(ids, memID) {
			return true
		}
	}
	return false
}

func (cs *commands) forgetNotFound(arg string) string {
	return fmt.Sprintf("This room has no memory %q. `!ada memories` lists them with their numbers and ids.", arg)
}

// errNotListed is memoryByRef's answer to a number from a member who was
// shown no listing here (since the last restart or `forget all`).
var errNotListed = errors.New("no listing shown")

// memoryByRef resolves a number of the member's last listing (none when
// they were shown none: errNotListed), a short id (among the room's
// memories, or those forgotten here), or takes a memory id as it is.
func (cs *commands) memoryByRef(ctx context.Context, room id.RoomID, member id.UserID, ref string) (string, error) {
	n, err := strconv.Atoi(ref)
	if err != nil || len(ref) == shortIDLen {
		switch {
		case core.ValidDocID(ref):
			return ref, nil
		case len(ref) == shortIDLen:
			return cs.memoryByShortID(ctx, room, strings.ToLower(ref))
		}
		return "", nil
	}
	listed, ok := cs.rooms.get(room).listed[member]
	if !ok {
		// The member saw no numbers: forgetting "2" of a list they never
		// saw could take the wrong memory (issue 40 item 15).
		return "", errNotListed
	}
	if n < 1 || n > len(listed) {
		return "", nil
	}
	return listed[n-1], nil
}

// memoryByShortID finds the room's memory whose id starts with short.
func (cs *commands) memoryByShortID(ctx context.Context, room id.RoomID, short string) (string, error) {
	for memID := range cs.rooms.get(room).forgotten {
		if shortID(memID) == short {
			return memID, nil
		}
	}
	cursor := ""
	for range maxForgetAllPages {
		page, err := cs.roomMemories(ctx, room, cursor)
		if err != nil {
			return "", err
		}
		for _, m := range page.Items {
			if shortID(m.ID) == short {
				return m.ID, nil
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	return "", nil
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
	a, level, err := cs.actor(ctx, c)
	if err != nil {
		return "", err
	}
	if !a.Moderates(c.evt.RoomID.String()) {
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
			if err := cs.backend.DeleteMemory(ctx, m.ID, forgetAllReason); err != nil && core.KindOf(err) != core.KindNotFound {
				return "", fmt.Errorf("forget all, after %d: %w", n, err)
			}
			n++
		}
	}
	if err := cs.bridge.UnlinkKind(ctx, c.evt.RoomID.String(), storage.LinkMemory); err != nil {
		logFrom(ctx, cs.log).Error("could not unlink the forgotten memories", "error", err)
	}
	cs.rooms.get(c.evt.RoomID).listed = nil
	dropWhy(ctx, cs.bridge, cs.rooms, cs.log, c.evt.RoomID, "")
	logFrom(ctx, cs.log).Info("all room memories forgotten on request", "count", n, "by", c.evt.Sender.String())
	if n == 0 {
		return "This room had no memories; nothing to forget.", nil
	}
	if n == 1 {
		return "🗑️ Forgot the one memory of this room.", nil
	}
	return fmt.Sprintf("🗑️ Forgot all %d memories of this room.", n), nil
}

// oneLine flattens text to one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
