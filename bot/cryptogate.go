package bot

import (
	"context"

	"maunium.net/go/mautrix"
)

// cryptoGate serialises the bot's own encryption with the crypto work of
// the sync loop. mautrix's OlmMachine caches the account's cross-signing
// keys in unguarded fields: the sync loop resets the cache when our own
// device list changes (storeCrossSigningKeys) while Encrypt, called from a
// room worker, reads and fills it (GetOwnCrossSigningPublicKeys) — a data
// race the race detector catches. Holding one gate around both removes it,
// and also keeps two rooms from sharing a group session at the same moment.
type cryptoGate chan struct{}

func newCryptoGate() cryptoGate { return make(cryptoGate, 1) }

// lock waits for the gate, or for ctx to end.
func (g cryptoGate) lock(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g cryptoGate) unlock() { <-g }

// wrapSync registers listeners so that every sync listener registered by
// register (the crypto helper's ProcessSyncResponse) runs with the gate held.
// mautrix runs sync listeners in order and the crypto helper's always
// returns true, so the closing listener always runs.
func (g cryptoGate) wrapSync(syncer mautrix.ExtensibleSyncer, register func() error) error {
	syncer.OnSync(func(context.Context, *mautrix.RespSync, string) bool {
		g <- struct{}{}
		return true
	})
	err := register()
	syncer.OnSync(func(context.Context, *mautrix.RespSync, string) bool {
		g.unlock()
		return true
	})
	return err
}
