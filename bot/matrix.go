package bot

import (
	"context"
	"log/slog"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
)

// matrix is the bottom of the bridge as the room handlers see it: sending
// (encrypted where the room is), reactions and the room state the sends
// depend on (send.go, reactions.go, roomstate.go). It decides nothing.
type matrix struct {
	// cli and crypto are set by the login and the encryption set-up, runCtx
	// by Run: the handlers only run after them.
	cli    *mautrix.Client
	crypto *cryptohelper.CryptoHelper
	runCtx context.Context
	// gate serialises encryption with the sync loop's crypto work.
	gate  *cryptoGate
	rooms *roomStates
	// name is the bot's display name (BOT_DISPLAY_NAME).
	name string
	log  *slog.Logger
}
