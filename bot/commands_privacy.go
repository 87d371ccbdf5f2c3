package bot

import (
	"context"
	"fmt"

	"github.com/ada-chat/ada/storage"
)

// storageText says plainly what is stored from the room; the commands and
// the introduction say it in the same words.
func (o Options) storageText(s storage.BridgeRoom) string {
	switch {
	case !o.StoreInRAG:
		return "nothing is stored: storage is off for every room on this bridge (STORE_IN_RAG=false)"
	case !s.StorageEnabled:
		return "privacy mode is on: nothing from this room is stored"
	case o.RetentionDays > 0:
		return fmt.Sprintf("memory storage is on: messages, conversation turns and memories from this room are stored and deleted after %d days", o.RetentionDays)
	default:
		return "memory storage is on: messages, conversation turns and memories from this room are stored"
	}
}

// cmdPrivacyStatus may be asked by anyone.
func (cs *commands) cmdPrivacyStatus(_ context.Context, c *commandEvent) (string, error) {
	return "In this room, " + cs.opts.storageText(c.room) + ".", nil
}

// cmdPrivacySet handles `privacy on` (storage ENABLED) and `privacy off`
// (privacy mode: storage disabled), for moderators only, and only when the
// operator allows opting out (ALLOW_PRIVACY_OPT_OUT).
func (cs *commands) cmdPrivacySet(enable bool) func(context.Context, *commandEvent) (string, error) {
	return func(ctx context.Context, c *commandEvent) (string, error) {
		if !cs.opts.AllowPrivacyOptOut {
			return "Privacy settings cannot be changed on this bridge (ALLOW_PRIVACY_OPT_OUT=false). In this room, " + cs.opts.storageText(c.room) + ".", nil
		}
		level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
		if err != nil {
			return "", err
		}
		if level < moderatorLevel {
			return fmt.Sprintf("Only room moderators (power level %d or more) can change privacy; your level is %d. "+
				"Nothing changed: in this room, %s.", moderatorLevel, level, cs.opts.storageText(c.room)), nil
		}
		if c.room.StorageEnabled == enable {
			return alreadyText(enable, cs.opts.storageText(c.room)), nil
		}
		if err := cs.bridge.SetStorage(ctx, c.room.RoomID, enable, cs.now()); err != nil {
			return "", err
		}
		c.room.StorageEnabled = enable
		logFrom(ctx, cs.log).Info("room storage changed", "storage_enabled", enable, "by", c.evt.Sender.String())
		if enable {
			return "✅ Memory storage is now ON. In this room, " + cs.opts.storageText(c.room) + ".", nil
		}
		return "🔒 Privacy mode is now ON: from now on nothing from this room is stored (no messages, turns, summaries or memories).", nil
	}
}

// alreadyText answers a privacy change to what the room already has: it
// says that nothing changed, and what is true.
func alreadyText(enable bool, state string) string {
	if enable {
		return "Memory storage is already on; nothing changed. In this room, " + state + "."
	}
	return "Memory storage is already off (privacy mode is on); nothing changed: nothing from this room is stored."
}
