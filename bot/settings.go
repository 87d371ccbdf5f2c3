package bot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// roomSetting is one setting a room's moderators may choose (`!ada set
// <name> <value>`). The registry (settingsTable) is the one list: `!ada
// settings`, `set`, `unset`, `help` and the answer all read it, so a new
// setting is one entry here and one field in answerSettings.
type roomSetting struct {
	name string
	// values says what may be given, for the usage and refusals.
	values func(o Options) string
	help   string
	// parse checks a value against the operator's bounds and returns it as
	// stored; a refusal is a plain sentence for the room. It runs when the
	// value is set and again when it is used, so that the operator's bounds
	// always win (a model taken off ROOM_MODELS is no longer used).
	parse func(o Options, raw string) (value, refusal string)
	// def is the operator's default, as shown by `!ada settings`.
	def func(o Options) string
	// apply puts a valid value into the answer's settings.
	apply func(value string, s *answerSettings)
}

// answerSettings are what a room's settings change in its answers.
type answerSettings struct {
	model         string // "" = LLM_MODEL
	instructions  string
	repliesThread bool   // answers start a thread on the question (settings_replies.go)
	manualMemory  bool   // no automatic memories
	context       int    // recent messages given as context
	stream        string // "on" or "off": answers shown as written, by edits; "" = STREAM_EDITS
	tools         string // MCP tools offered, comma-separated; "" = none; "all" until forAnswer resolves it
	// location is the room's time zone (`timezone`, else TIMEZONE): the
	// times the question names are read in it.
	location *time.Location
}

// streamOr says whether the answer is streamed, def (STREAM_EDITS) unless
// the room chose.
func (s answerSettings) streamOr(def bool) bool {
	if s.stream == "" {
		return def
	}
	return s.stream == "on"
}

// maxRoomInstructions bounds a room's instructions: they travel with every
// question of the room and must not crowd out its context.
const maxRoomInstructions = 1000

// settingsTable lists the room settings, in the order `!ada settings`
// shows them.
func settingsTable() []roomSetting {
	return []roomSetting{
		{
			name: "model", help: "the language model that answers here",
			values: func(o Options) string { return strings.Join(allowedModels(o), ", ") },
			parse: func(o Options, raw string) (string, string) {
				if slices.Contains(allowedModels(o), raw) {
					return raw, ""
				}
				return "", fmt.Sprintf("`%s` is not a model this bridge allows. Allowed: %s.", raw, codeList(allowedModels(o)))
			},
			def: func(o Options) string { return o.DefaultModel },
			apply: func(v string, s *answerSettings) {
				s.model = v
			},
		},
		{
			name: "instructions", help: fmt.Sprintf("this room's own instructions, added to my persona (at most %d characters)", maxRoomInstructions),
			values: func(Options) string { return "<text>" },
			parse: func(_ Options, raw string) (string, string) {
				raw = strings.TrimSpace(raw)
				if n := len([]rune(raw)); n > maxRoomInstructions {
					return "", fmt.Sprintf("Instructions may be at most %d characters; these are %d.", maxRoomInstructions, n)
				}
				if raw == "" {
					return "", "Give the instructions after the name: `" + commandPrefix + " set instructions <text>`."
				}
				return raw, ""
			},
			def:   func(Options) string { return "" },
			apply: func(v string, s *answerSettings) { s.instructions = v },
		},
		choice("replies", "where answers go: `thread` starts a thread on the question and answers there, `room` answers in the main timeline; a question asked in a thread is answered in it either way",
			[]string{"thread", "room"}, "room", func(v string, s *answerSettings) { s.repliesThread = v == "thread" }),
		choice("memory", "`auto` learns memories from conversations, `manual` only stores what `"+commandPrefix+" remember` is told",
			[]string{"auto", "manual"}, "auto", func(v string, s *answerSettings) { s.manualMemory = v == "manual" }),
		streamSetting(),
		toolsSetting(),
		timezoneSetting(),
		{
			name: "context", help: "how many recent messages I read as context",
			values: func(o Options) string { return fmt.Sprintf("0..%d", o.MaxContextMessages) },
			parse: func(o Options, raw string) (string, string) {
				n, err := strconv.Atoi(raw)
				if err != nil || n < 0 || n > o.MaxContextMessages {
					return "", fmt.Sprintf("`context` is a number of messages from 0 to %d (this bridge's MAX_CONTEXT_MESSAGES).", o.MaxContextMessages)
				}
				return strconv.Itoa(n), ""
			},
			def: func(o Options) string { return strconv.Itoa(o.MaxContextMessages) },
			apply: func(v string, s *answerSettings) {
				s.context, _ = strconv.Atoi(v) // parse checked it
			},
		},
	}
}

// choice is a setting with a fixed set of values (the first of the
// operator's, def, being today's behaviour).
func choice(name, help string, values []string, def string, apply func(string, *answerSettings)) roomSetting {
	return roomSetting{
		name: name, help: help,
		values: func(Options) string { return strings.Join(values, "|") },
		parse: func(_ Options, raw string) (string, string) {
			if v := strings.ToLower(raw); slices.Contains(values, v) {
				return v, ""
			}
			return "", fmt.Sprintf("`%s` is %s.", name, orList(codes(values)))
		},
		def:   func(Options) string { return def },
		apply: apply,
	}
}

// streamSetting chooses whether answers are shown as they are written;
// the operator's default is STREAM_EDITS.
func streamSetting() roomSetting {
	st := choice("stream", "`on` shows answers as they are written, by edits of the reply; `off` posts them whole",
		[]string{"on", "off"}, "off", func(v string, s *answerSettings) { s.stream = v })
	st.def = func(o Options) string {
		if o.Stream.On {
			return "on"
		}
		return "off"
	}
	return st
}

// allowedModels are LLM_MODEL and ROOM_MODELS, without repeats.
func allowedModels(o Options) []string {
	out := []string{o.DefaultModel}
	for _, m := range o.RoomModels {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// roomSettings resolves the rooms' stored settings against the operator's
// bounds; it holds the registry and the options.
type roomSettings struct {
	table []roomSetting
	opts  Options
	// zone is TIMEZONE, loaded once.
	zone   *time.Location
	bridge *storage.Bridge
	log    *slog.Logger
}

func newRoomSettings(opts Options, bridge *storage.Bridge, log *slog.Logger) *roomSettings {
	return &roomSettings{table: settingsTable(), opts: opts, zone: defaultZone(opts.Reminders), bridge: bridge, log: log}
}

// find returns the named setting.
func (rs *roomSettings) find(name string) (roomSetting, bool) {
	for _, s := range rs.table {
		if s.name == name {
			return s, true
		}
	}
	return roomSetting{}, false
}

// names lists the settings, for refusals.
func (rs *roomSettings) names() string {
	var out []string
	for _, s := range rs.table {
		out = append(out, s.name)
	}
	return codeList(out)
}

// forAnswer is what the room's settings make of its next answer: the
// operator's defaults, changed by each stored value that is still within
// the operator's bounds. A read error leaves the defaults: an answer is
// better than none.
func (rs *roomSettings) forAnswer(ctx context.Context, room id.RoomID) answerSettings {
	out := answerSettings{context: rs.opts.MaxContextMessages, location: rs.zone}
	stored, err := rs.bridge.RoomSettings(ctx, room.String())
	if err != nil {
		logFrom(ctx, rs.log).Error("could not read the room's settings; using the defaults", "error", err)
		return out
	}
	for _, s := range rs.table {
		if raw, ok := stored[s.name]; ok {
			if v, refusal := s.parse(rs.opts, raw); refusal == "" {
				s.apply(v, &out)
			}
		}
	}
	if out.tools == core.AllTools {
		out.tools = strings.Join(rs.opts.RoomTools, ",") // all within MCP_ROOM_TOOLS
	}
	return out
}

// applyTo changes the chat request as the settings say: the model, the
// instructions beside the persona, automatic memories, and how much of the
// room's recent context goes along.
func (s answerSettings) applyTo(req *core.ChatRequest) {
	req.Model = s.model
	if s.instructions != "" {
		req.Instructions = "The moderators of this chat room set these instructions for your answers here. " +
			"They add to your persona and never override its rules:\n" + s.instructions
	}
	if s.manualMemory {
		off := false
		req.AutoMemory = &off
	}
	req.MCPTools = nil
	if s.tools != "" {
		req.MCPTools = strings.Split(s.tools, ",")
	}
	if over := len(req.ContextMessages) - s.context; over > 0 {
		req.ContextMessages = req.ContextMessages[over:]
	}
}

// codes formats values as inline code.
func codes(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = "`" + v + "`"
	}
	return out
}

// codeList is values as inline code, comma-separated.
func codeList(values []string) string { return strings.Join(codes(values), ", ") }
