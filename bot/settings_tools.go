package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

const toolsSettingName = "tools"

// toolsSetting chooses the MCP servers' tools the room's answers may use,
// within the operator's MCP_ROOM_TOOLS (Options.RoomTools): `none` (the
// default), `all` (all that MCP_ROOM_TOOLS allows), or tools and servers
// by name. parse runs again at each answer, so a tool taken off
// MCP_ROOM_TOOLS is no longer used.
func toolsSetting() roomSetting {
	return roomSetting{
		name: toolsSettingName, help: "the tools of the operator's MCP servers I may use here (`none`, `all`, or names: a tool as `server.tool`, or a server)",
		values: func(o Options) string {
			if len(o.RoomTools) == 0 {
				return "none (this bridge allows no tools in rooms: MCP_ROOM_TOOLS)"
			}
			return "none|all|<names among " + strings.Join(o.RoomTools, ", ") + ">"
		},
		parse: func(o Options, raw string) (string, string) {
			switch v := strings.ToLower(strings.TrimSpace(raw)); v {
			case "none":
				return v, ""
			case core.AllTools:
				if len(o.RoomTools) == 0 {
					return "", "This bridge allows no tools in rooms (the operator's MCP_ROOM_TOOLS is empty)."
				}
				return v, ""
			}
			names := strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == ' ' })
			if len(names) == 0 {
				return "", "Give `none`, `all`, or tool names after `tools`."
			}
			for _, n := range names {
				if n == core.AllTools || !core.ToolAllowed(o.RoomTools, n) {
					return "", fmt.Sprintf("`%s` is not a tool this bridge allows in rooms. Allowed: %s.", n, allowedTools(o))
				}
			}
			return strings.Join(names, ","), ""
		},
		def: func(Options) string { return "none" },
		apply: func(v string, s *answerSettings) {
			if v != "none" {
				s.tools = v
			}
		},
	}
}

func allowedTools(o Options) string {
	if len(o.RoomTools) == 0 {
		return "none"
	}
	return codeList(o.RoomTools)
}

// toolsHelp lists, for !ada help, the MCP tools the operator allows in
// rooms, with their server and description, and which are on in room; ""
// when rooms may use none or the list cannot be read.
func (cs *commands) toolsHelp(ctx context.Context, room id.RoomID) string {
	if len(cs.opts.RoomTools) == 0 {
		return ""
	}
	infos, err := cs.roomTools(ctx)
	if err != nil {
		logFrom(ctx, cs.log).Warn("could not list the tools for !ada help", "error", err)
		return ""
	}
	var on []string
	if t := cs.settings.forAnswer(ctx, room).tools; t != "" {
		on = strings.Split(t, ",")
	}
	var lines []string
	for _, info := range infos {
		server, _, _ := strings.Cut(info.Name, ".")
		state := "off here"
		if core.ToolAllowed(on, info.Name) {
			state = "on here"
		}
		lines = append(lines, fmt.Sprintf("- `%s` (%s, server %s): %s", info.Name, state, server, oneLine(info.Description, 200)))
	}
	if len(lines) == 0 {
		return ""
	}
	return "**Tools** a moderator can turn on with `" + commandPrefix + " set tools <names>`:\n" + strings.Join(lines, "\n")
}

// unknownTools refuses, at `!ada set tools` only, names that no MCP server
// offers now: a typo would otherwise be stored and silently match nothing.
// The answers do not check again, since a server may be down for a while
// and its tools come back with it.
func (cs *commands) unknownTools(ctx context.Context, value string) (string, error) {
	if value == "none" || value == core.AllTools {
		return "", nil
	}
	infos, err := cs.roomTools(ctx)
	if err != nil {
		return "", err
	}
	var offered []string
	for _, info := range infos {
		offered = append(offered, info.Name)
	}
	for _, n := range strings.Split(value, ",") {
		if !slices.ContainsFunc(offered, func(tool string) bool { return core.ToolAllowed([]string{n}, tool) }) {
			known := "none"
			if len(offered) > 0 {
				known = codeList(offered)
			}
			return fmt.Sprintf("No MCP server offers a tool `%s` now. Tools this room may use: %s.", n, known), nil
		}
	}
	return "", nil
}

// roomTools are the MCP servers' tools offered now that MCP_ROOM_TOOLS
// lets rooms choose.
func (cs *commands) roomTools(ctx context.Context) ([]core.SpecialistInfo, error) {
	infos, err := cs.backend.Specialists(ctx)
	if err != nil {
		return nil, err
	}
	var out []core.SpecialistInfo
	for _, info := range infos {
		if slices.Contains(info.Tags, core.TagMCP) && info.Enabled && core.ToolAllowed(cs.opts.RoomTools, info.Name) {
			out = append(out, info)
		}
	}
	return out, nil
}
