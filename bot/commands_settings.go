package bot

import (
	"context"
	"fmt"
	"strings"
)

// The room settings commands: `!ada settings` (anyone), `!ada set <name>
// <value>` and `!ada unset <name>` (moderators). The settings themselves are
// settings.go's registry.

// cmdSettings lists the room's settings and where each value comes from.
func (cs *commands) cmdSettings(ctx context.Context, c *commandEvent) (string, error) {
	stored, err := cs.bridge.RoomSettings(ctx, c.room.RoomID)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, s := range cs.settings.table {
		def := s.def(cs.opts)
		raw, set := stored[s.name]
		value, refusal := s.parse(cs.opts, raw)
		switch {
		case !set:
			lines = append(lines, fmt.Sprintf("- `%s`: %s (bridge default)", s.name, showValue(def)))
		case refusal != "":
			lines = append(lines, fmt.Sprintf("- `%s`: %s (bridge default; this room chose %s, which the bridge no longer allows)",
				s.name, showValue(def), showValue(raw)))
		default:
			lines = append(lines, fmt.Sprintf("- `%s`: %s (set in this room)", s.name, showValue(value)))
		}
	}
	return fmt.Sprintf("**Settings of this room**\n\n%s\n\nModerators change them with `%s set <name> <value>` "+
		"and return one to the bridge default with `%s unset <name>`; `%s help` says what each does.",
		strings.Join(lines, "\n"), commandPrefix, commandPrefix, commandPrefix), nil
}

// showValue quotes a setting's value, long ones (instructions) as a block.
func showValue(v string) string {
	switch {
	case v == "":
		return "none"
	case strings.Contains(v, "\n") || len(v) > 60:
		return "\n\n  > " + strings.ReplaceAll(v, "\n", "\n  > ") + "\n"
	}
	return "`" + v + "`"
}

// cmdSet changes one setting of the room, for moderators.
func (cs *commands) cmdSet(ctx context.Context, c *commandEvent) (string, error) {
	if len(c.args) == 0 {
		return fmt.Sprintf("Usage: `%s set <name> <value>`; names: %s.", commandPrefix, cs.settings.names()), nil
	}
	s, ok := cs.settings.find(c.args[0])
	if !ok {
		return fmt.Sprintf("There is no setting `%s`. Settings: %s.", c.args[0], cs.settings.names()), nil
	}
	raw := textAfterFields(c.raw, 1)
	if raw == "" {
		return fmt.Sprintf("Usage: `%s set %s %s`.", commandPrefix, s.name, s.values(cs.opts)), nil
	}
	refusal, err := cs.moderatorOnly(ctx, c, "change this room's settings")
	if refusal != "" || err != nil {
		return refusal, err
	}
	value, refusal := s.parse(cs.opts, raw)
	if refusal == "" && s.name == toolsSettingName {
		if refusal, err = cs.unknownTools(ctx, value); err != nil {
			return "", err
		}
	}
	if refusal != "" {
		return refusal + " Nothing changed.", nil
	}
	if err := cs.bridge.SetRoomSetting(ctx, c.room.RoomID, s.name, value, cs.now()); err != nil {
		return "", err
	}
	logFrom(ctx, cs.log).Info("room setting changed", "setting", s.name, "by", c.evt.Sender.String())
	return fmt.Sprintf("✅ `%s` is now %s in this room, from the next message on.", s.name, showValue(value)), nil
}

// cmdUnset returns one setting to the bridge default, for moderators.
func (cs *commands) cmdUnset(ctx context.Context, c *commandEvent) (string, error) {
	if len(c.args) != 1 {
		return fmt.Sprintf("Usage: `%s unset <name>`; names: %s.", commandPrefix, cs.settings.names()), nil
	}
	s, ok := cs.settings.find(c.args[0])
	if !ok {
		return fmt.Sprintf("There is no setting `%s`. Settings: %s.", c.args[0], cs.settings.names()), nil
	}
	if refusal, err := cs.moderatorOnly(ctx, c, "change this room's settings"); refusal != "" || err != nil {
		return refusal, err
	}
	had, err := cs.bridge.UnsetRoomSetting(ctx, c.room.RoomID, s.name)
	if err != nil {
		return "", err
	}
	if !had {
		return fmt.Sprintf("`%s` already has the bridge default here (%s); nothing changed.", s.name, showValue(s.def(cs.opts))), nil
	}
	logFrom(ctx, cs.log).Info("room setting unset", "setting", s.name, "by", c.evt.Sender.String())
	return fmt.Sprintf("✅ `%s` is back to the bridge default (%s), from the next message on.", s.name, showValue(s.def(cs.opts))), nil
}

// moderatorOnly returns a refusal for a member below moderatorLevel, who
// may not do what.
func (cs *commands) moderatorOnly(ctx context.Context, c *commandEvent, what string) (string, error) {
	level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
	if err != nil {
		return "", err
	}
	if level < moderatorLevel {
		return fmt.Sprintf("Only room moderators (power level %d or more) can %s; your level is %d. Nothing changed.",
			moderatorLevel, what, level), nil
	}
	return "", nil
}

// settingsHelp is `!ada help`'s list of the room settings and their values.
func (cs *commands) settingsHelp() string {
	var lines []string
	for _, s := range cs.settings.table {
		lines = append(lines, fmt.Sprintf("- `%s` (%s): %s", s.name, s.values(cs.opts), s.help))
	}
	return fmt.Sprintf("**Room settings** (`%s set <name> <value>`):\n\n%s", commandPrefix, strings.Join(lines, "\n"))
}
