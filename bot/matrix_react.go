package bot

import (
	"context"

	"maunium.net/go/mautrix/id"
)

// Reactions show a message's state (SPEC.md: received → processing → done or
// failed), plus a sign on messages that could not be decrypted.
const (
	reactThinking      = "🧠"
	reactDone          = "✅"
	reactFailed        = "❌"
	reactUndecryptable = "🔒"
)

// react annotates an event. Reactions are best effort: a failure is logged
// and never stops the answer. mautrix sends m.reaction unencrypted even in
// encrypted rooms, as clients do, so the server can aggregate them.
func (mx *matrix) react(ctx context.Context, room id.RoomID, target id.EventID, key string) {
	if _, err := mx.cli.SendReaction(ctx, room, target, key); err != nil && ctx.Err() == nil {
		logFrom(ctx, mx.log).Warn("could not add a reaction", "reaction", key, "error", err)
	}
}
