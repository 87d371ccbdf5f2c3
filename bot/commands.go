package bot

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"
	"unicode"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// commandPrefix starts every room command.
const commandPrefix = "!ada"

// moderatorLevel is the power level needed to change a room's privacy.
const moderatorLevel = 50

// commands runs the `!ada` commands: the table, the dispatch to one
// handler per command, and the reply. The handlers live in files named for
// their family: commands_privacy.go, commands_status.go, commands_memory.go,
// commands_why.go.
type commands struct {
	mx      *matrix
	backend Backend
	bridge  *storage.Bridge
	window  *window
	rooms   *roomStates
	opts    Options
	// health and waiting are the answerer's: how the latest chats went,
	// and how many of a room's questions wait for the model (!ada status).
	health  *chatHealth
	waiting func(id.RoomID) int
	// inFlight are the answers being made: `!ada forget me` stops those
	// to the member's questions.
	inFlight *answersInFlight
	table    map[string]*command
	// settings are the rooms' own settings (commands_settings.go), quota
	// their quotas (!ada status).
	settings *roomSettings
	quota    *quotas
	// web sends the links to the memory page (`!ada web`, web.go).
	web *webLinks
	// reminders sets, lists and cancels reminders (commands_remind.go).
	reminders *reminders
	now       func() time.Time
	log       *slog.Logger
}

// command is one `!ada` command, in the shape of mautrix's commands package:
// a name, help text, a handler, and optional subcommands. A handler returns
// the Markdown reply, or an error, which becomes ❌ and a plain notice.
type command struct {
	name  string
	usage string
	help  string
	run   func(ctx context.Context, c *commandEvent) (string, error)
	subs  map[string]*command
	// takesText is set for the commands that read words after their name;
	// the others answer extra words with their usage ("!ada clear
	// everything" clears nothing).
	takesText bool
}

// commandEvent is one parsed command.
type commandEvent struct {
	evt  *event.Event
	room storage.BridgeRoom
	args []string // after the command name, lower-cased
	raw  string   // the same, as written (`!ada remember <text>`)
}

// commandTable lists every command in one place.
func (cs *commands) commandTable() map[string]*command {
	// `storage` is the plain spelling of the spec's `privacy`: on = Ada
	// stores (DECISIONS.md, "Rooms (added turn 5)").
	storage := cs.storageCommand("storage", "")
	privacy := cs.storageCommand("privacy", ", as `!ada storage …`")
	// `!ada web` runs alone too.
	web := &command{name: "web", usage: "web", help: "get a one-time link, by direct message, to a page showing what I remember about you and your rooms", run: cs.web.cmdWeb,
		subs: map[string]*command{
			"logout": {name: "logout", usage: "web logout", help: "end every memory page session of yours, and withdraw your unused links", run: cs.web.cmdLogout},
		}}
	remind, reminders := cs.remindCommands()
	return map[string]*command{
		"privacy":   privacy,
		"storage":   storage,
		"clear":     {name: "clear", usage: "clear", help: "start a new conversation; earlier messages are no longer used as context (this room's memories are kept; moderators, in a shared room)", run: cs.cmdClear},
		"remember":  {name: "remember", usage: "remember <text>", help: "remember something for this room", run: cs.cmdRemember, takesText: true},
		"memories":  {name: "memories", usage: "memories", help: "list what I remember in this room, newest first", run: cs.cmdMemories},
		"forget":    {name: "forget", usage: "forget <number|id|me|@user|all>", help: "forget one of your memories of this room; `me`: everything from you here (moderators: any memory, `@user`, `all`)", run: cs.cmdForget, takesText: true},
		"why":       {name: "why", usage: "why", help: "show what my last answer here used: memories, recalled turns, summaries, with scores", run: cs.cmdWhy},
		"status":    {name: "status", usage: "status", help: "health of Ada, its language model and this room", run: cs.cmdStatus},
		"settings":  {name: "settings", usage: "settings", help: "show this room's settings and where each comes from", run: cs.cmdSettings},
		"set":       {name: "set", usage: "set <name> <value>", help: "change one of this room's settings (moderators; see below)", run: cs.cmdSet, takesText: true},
		"unset":     {name: "unset", usage: "unset <name>", help: "return one of this room's settings to the bridge default (moderators)", run: cs.cmdUnset, takesText: true},
		"web":       web,
		"remind":    remind,
		"reminders": reminders,
		"help":      {name: "help", usage: "help", help: "show this list", run: cs.cmdHelp},
	}
}

// storageCommand is `<name> on|off|status`, under either spelling.
func (cs *commands) storageCommand(name, same string) *command {
	return &command{name: name, usage: name + " on|off|status", help: "what I store from this room", subs: map[string]*command{
		"on":     {name: "on", usage: name + " on", help: "store messages, turns and memories from this room (moderators)" + same, run: cs.cmdPrivacySet(true)},
		"off":    {name: "off", usage: name + " off", help: "store nothing from this room (moderators)" + same, run: cs.cmdPrivacySet(false)},
		"status": {name: "status", usage: name + " status", help: "say what I store from this room" + same, run: cs.cmdPrivacyStatus},
	}}
}

// parseCommand recognises "!ada ..." (any case) and returns the words after
// the prefix, lower-cased.
func parseCommand(text string) ([]string, bool) {
	fields := strings.Fields(text)
	if len(fields) == 0 || !strings.EqualFold(fields[0], commandPrefix) {
		return nil, false
	}
	args := fields[1:]
	for i := range args {
		args[i] = strings.ToLower(args[i])
	}
	return args, true
}

// runCommand finds the handler (walking subcommands) and posts its reply.
// `!ada` alone shows the help; unknown commands get a hint.
func (cs *commands) runCommand(ctx context.Context, evt *event.Event, s storage.BridgeRoom, args []string) error {
	log := logFrom(ctx, cs.log)
	if len(args) == 0 {
		args = []string{"help"}
	}
	cmd, ok := cs.table[args[0]]
	path := []string{args[0]}
	args = args[1:]
	for ok && cmd.subs != nil {
		if len(args) == 0 {
			if cmd.run == nil { // a command with subcommands may run alone too (`!ada web`)
				cmd = &command{run: usageOf(cmd)}
			}
			break
		}
		sub, found := cmd.subs[args[0]]
		if !found {
			cmd = &command{run: unknownSub(cmd, args[0])}
			break
		}
		cmd, path, args = sub, append(path, args[0]), args[1:]
	}
	switch {
	case !ok:
		cmd = &command{run: unknownCommand(path[0])}
	case len(args) > 0 && cmd.usage != "" && !cmd.takesText:
		cmd = &command{run: usageOf(cmd)}
	}
	log = log.With("command", strings.Join(path, " "))
	log.Info("running command")
	raw := textAfterFields(messageBody(evt), 1+len(path))
	reply, err := cmd.run(withLogger(ctx, log), &commandEvent{evt: evt, room: s, args: args, raw: raw})
	if err != nil {
		log.Error("command failed", "error", err)
		cs.mx.fail(ctx, evt, "the command failed; it has been logged.")
		return nil
	}
	if reply == "" {
		return nil // the handler posted its own reply (`!ada web` in a DM)
	}
	sent, err := cs.mx.sendNotice(ctx, evt, reply)
	if err != nil {
		return fmt.Errorf("post the command's reply: %w", err)
	}
	linkReplies(ctx, cs.bridge, cs.log, evt, []id.EventID{sent}, cs.now())
	return nil
}

func unknownCommand(name string) func(context.Context, *commandEvent) (string, error) {
	return func(context.Context, *commandEvent) (string, error) {
		return fmt.Sprintf("I don't know the command `%s %s`. Try `%s help` for the list.", commandPrefix, name, commandPrefix), nil
	}
}

func unknownSub(parent *command, sub string) func(context.Context, *commandEvent) (string, error) {
	return func(context.Context, *commandEvent) (string, error) {
		return fmt.Sprintf("I don't know `%s %s %s`. Usage: `%s %s`.", commandPrefix, parent.name, sub, commandPrefix, parent.usage), nil
	}
}

func usageOf(parent *command) func(context.Context, *commandEvent) (string, error) {
	return func(context.Context, *commandEvent) (string, error) {
		return fmt.Sprintf("Usage: `%s %s`.", commandPrefix, parent.usage), nil
	}
}

// cmdHelp lists the commands and how to wake the bot.
func (cs *commands) cmdHelp(ctx context.Context, c *commandEvent) (string, error) {
	var lines []string
	var names []string
	for n := range cs.table {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := cs.table[n]
		if c.run != nil {
			lines = append(lines, fmt.Sprintf("- `%s %s`: %s", commandPrefix, c.usage, c.help))
		}
		if c.subs == nil {
			continue
		}
		var subs []string
		for s := range c.subs {
			subs = append(subs, s)
		}
		sort.Strings(subs)
		for _, s := range subs {
			lines = append(lines, fmt.Sprintf("- `%s %s`: %s", commandPrefix, c.subs[s].usage, c.subs[s].help))
		}
	}
	help := fmt.Sprintf("**%s commands**\n\n%s\n\n%s\n\n%s", cs.opts.DisplayName, strings.Join(lines, "\n"), cs.settingsHelp(), cs.howToAsk(ctx, c))
	if tools := cs.toolsHelp(ctx, c.evt.RoomID); tools != "" {
		help += "\n\n" + tools
	}
	return help, nil
}

// howToAsk is Options.howToAsk for the room of c, and what Ada does with
// images.
func (cs *commands) howToAsk(ctx context.Context, c *commandEvent) string {
	return cs.opts.howToAsk(cs.mx.isDM(ctx, c.evt.RoomID)) + " " +
		"I can read the text in images: ask in the image's caption, reply to the image, or ask right after sending it."
}

// cmdClear starts a new conversation for the room and forgets its context.
// In a shared room the conversation is everyone's: only moderators reset
// it (issue 40 item 15); in a direct chat the member may.
func (cs *commands) cmdClear(ctx context.Context, c *commandEvent) (string, error) {
	if !cs.mx.isDM(ctx, c.evt.RoomID) {
		level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
		if err != nil {
			return "", err
		}
		if level < moderatorLevel {
			return fmt.Sprintf("Only room moderators (power level %d or more) can start a new conversation here: it is everyone's. "+
				"Your level is %d; nothing changed.", moderatorLevel, level), nil
		}
	}
	if err := cs.bridge.SetConversation(ctx, c.room.RoomID, core.NewConversationID(), cs.now()); err != nil {
		return "", err
	}
	if err := cs.window.forgetContext(ctx, c.evt.RoomID); err != nil {
		return "", err
	}
	return "🧹 Started a new conversation: I will not use this room's earlier messages as context. This room's memories are kept (`!ada memories` lists them).", nil
}

// textAfterFields returns text without its first n whitespace-separated
// words, the rest as written.
func textAfterFields(text string, n int) string {
	rest := strings.TrimSpace(text)
	for range n {
		i := strings.IndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			return ""
		}
		rest = strings.TrimSpace(rest[i:])
	}
	return rest
}

// messageBody is the text of a message event, "" for other events.
func messageBody(evt *event.Event) string {
	if c, ok := evt.Content.Parsed.(*event.MessageEventContent); ok {
		return c.Body
	}
	return ""
}
