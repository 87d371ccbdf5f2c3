package bot

import (
	"context"
	"fmt"

	"github.com/ada-chat/ada/storage"
)

// storageText says plainly what Ada stores from the room, as a clause
// that says what happens, never which mode is "on" (issue 40 item 7); the
// commands, `!ada status` and the introduction say it in the same words.
func (o Options) storageText(s storage.BridgeRoom) string {
	switch {
	case !o.StoreInRAG:
		return "I store nothing from any room on this bridge (STORE_IN_RAG=false)"
	case !s.StorageEnabled:
		return "I store nothing from this room (no messages, turns, summaries or memories)"
	case o.RetentionDays > 0:
		return fmt.Sprintf("I store messages, conversation turns and memories from this room, and delete them after %d days", o.RetentionDays)
	default:
		return "I store messages, conversation turns and memories from this room"
	}
}

// storageSentence is storageText as a sentence of its own.
func (o Options) storageSentence(s storage.BridgeRoom) string {
	return o.storageText(s) + "."
}

// cmdPrivacyStatus (`privacy status`, `storage status`) may be asked by
// anyone.
func (cs *commands) cmdPrivacyStatus(_ context.Context, c *commandEvent) (string, error) {
	return cs.opts.storageSentence(c.room), nil
}

// cmdPrivacySet handles `privacy on` / `storage on` (Ada stores) and
// `privacy off` / `storage off` (she stores nothing from the room), for
// moderators only, and only when the operator allows opting out
// (ALLOW_PRIVACY_OPT_OUT). What was stored before stays either way.
func (cs *commands) cmdPrivacySet(enable bool) func(context.Context, *commandEvent) (string, error) {
	return func(ctx context.Context, c *commandEvent) (string, error) {
		if !cs.opts.AllowPrivacyOptOut {
			return "What I store cannot be changed on this bridge (ALLOW_PRIVACY_OPT_OUT=false). " + cs.opts.storageSentence(c.room), nil
		}
		level, err := cs.mx.powerLevel(ctx, c.evt.RoomID, c.evt.Sender)
		if err != nil {
			return "", err
		}
		if level < moderatorLevel {
			return fmt.Sprintf("Only room moderators (power level %d or more) can change what I store here; your level is %d. "+
				"Nothing changed: %s.", moderatorLevel, level, cs.opts.storageText(c.room)), nil
		}
		if c.room.StorageEnabled == enable {
			return alreadyText(enable, cs.opts.storageSentence(c.room)), nil
		}
		if err := cs.bridge.SetStorage(ctx, c.room.RoomID, enable, cs.now()); err != nil {
			return "", err
		}
		c.room.StorageEnabled = enable
		logFrom(ctx, cs.log).Info("room storage changed", "storage_enabled", enable, "by", c.evt.Sender.String())
		if enable {
			return "✅ I store what is said here again. " + cs.opts.storageSentence(c.room) + " `!ada storage off` stops it.", nil
		}
		return "🔒 I store nothing from this room now: no messages, turns, summaries or memories. " +
			"What I stored before stays (`!ada memories`, `!ada forget`); `!ada storage on` starts storing again.", nil
	}
}

// alreadyText answers a change to what the room already has: it says that
// nothing changed, and what is true.
func alreadyText(enable bool, state string) string {
	if enable {
		return "Nothing changed: I already store what is said here. " + state
	}
	return "Nothing changed: I already store nothing from this room."
}
