package bot

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"go.mau.fi/util/dbutil"
	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/cryptohelper"
	"maunium.net/go/mautrix/crypto/ssss"
	"maunium.net/go/mautrix/crypto/utils"
	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/roomqueue"
)

// setupCrypto starts end-to-end encryption (pure-Go Olm, build tag goolm)
// with the crypto store and the room-state store in Ada's SQLite file. The
// store is keyed by device id, so a new device never reuses another's keys.
// The crypto helper is never Closed: closing it would close Ada's database.
func (b *Bot) setupCrypto(ctx context.Context) error {
	db, err := dbutil.NewWithDB(b.deps.DB, "sqlite3")
	if err != nil {
		return err
	}
	db.Log = dbutil.ZeroLogger(b.zlog.With().Str("component", "matrix_db").Logger())
	pickle, err := b.pickleKey(ctx)
	if err != nil {
		return err
	}
	helper, err := cryptohelper.NewCryptoHelper(b.mx.cli, pickle, db)
	if err != nil {
		return fmt.Errorf("set up encryption: %w", err)
	}
	helper.DBAccountID = b.mx.cli.DeviceID.String()
	helper.DecryptErrorCallback = b.onUndecryptable
	syncer, ok := b.mx.cli.Syncer.(mautrix.ExtensibleSyncer)
	if !ok {
		return fmt.Errorf("set up encryption: the Matrix client's syncer cannot take listeners")
	}
	b.noteSyncs(syncer) // first, so that the crypto work of each sync is timed too
	if err := b.mx.gate.wrapSync(syncer, func() error { return helper.Init(ctx) }); err != nil {
		return fmt.Errorf("set up encryption: %w", err)
	}
	b.mx.cli.Crypto = helper
	b.mx.crypto = helper
	return nil
}

// pickleKey returns the key that encrypts Olm state at rest, made once and
// kept in bridge_state. It lives in the same file as what it protects, so it
// guards against leaking single rows, not the file: protect DATA_DIR.
func (b *Bot) pickleKey(ctx context.Context) ([]byte, error) {
	v, err := b.bridge.State(ctx, statePickleKey)
	if err != nil {
		return nil, fmt.Errorf("read the pickle key: %w", err)
	}
	if v != "" {
		return base64.StdEncoding.DecodeString(v)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := b.bridge.SetState(ctx, statePickleKey, base64.StdEncoding.EncodeToString(key)); err != nil {
		return nil, fmt.Errorf("save the pickle key: %w", err)
	}
	return key, nil
}

// ensureCrossSigning makes the bot's device verified by its own
// cross-signing identity, so clients do not flag it as unverified:
//   - already verified: nothing to do;
//   - an identity exists: MATRIX_RECOVERY_KEY unlocks it from secret storage
//     and the device is signed;
//   - no identity yet: one is made, stored in secret storage under
//     MATRIX_RECOVERY_KEY (or a new key, written to DATA_DIR/crypto), and the
//     device signed.
//
// Failures are logged, not fatal: encryption works without verification.
func (b *Bot) ensureCrossSigning(ctx context.Context) {
	mach := b.mx.crypto.Machine()
	log := b.log.With("device_id", b.mx.cli.DeviceID.String())
	hasKeys, verified, err := mach.GetOwnVerificationStatus(ctx)
	switch {
	case err != nil:
		log.Error("could not check the bot's cross-signing status", "error", err)
	case verified:
		log.Debug("bot device is cross-signed")
	case hasKeys && b.opts.RecoveryKey == "":
		log.Warn("the bot account has cross-signing keys but this device is not verified: set MATRIX_RECOVERY_KEY to the recovery key saved when they were made (DATA_DIR/crypto/recovery-key)")
	case hasKeys:
		if err := mach.VerifyWithRecoveryKey(ctx, b.opts.RecoveryKey); err != nil {
			log.Error("MATRIX_RECOVERY_KEY did not unlock the bot's cross-signing keys; the device stays unverified", "error", err)
			return
		}
		log.Info("bot device verified with the recovery key")
	default:
		if err := b.bootstrapCrossSigning(ctx); err != nil {
			log.Error("could not set up cross-signing; the device stays unverified", "error", err)
		}
	}
}

// bootstrapCrossSigning creates the account's cross-signing keys, stores
// them in secret storage (SSSS), publishes them and signs this device.
// Uploading the first keys needs no interactive auth on Dendrite or on
// Synapse (MSC3967); with MATRIX_PASSWORD it is offered when asked.
func (b *Bot) bootstrapCrossSigning(ctx context.Context) (err error) {
	mach := b.mx.crypto.Machine()
	key, generated, err := b.secretStorageKey()
	if err != nil {
		return err
	}
	// A new key is kept before anything uses it: a key that exists only on
	// the homeserver is a key nobody can give back.
	var keyFile string
	if generated {
		if keyFile, err = saveRecoveryKey(b.opts.DataDir, key.RecoveryKey()); err != nil {
			return fmt.Errorf("keep the new recovery key: %w", err)
		}
		defer func() {
			if err != nil { // the key unlocks nothing: the next start makes another
				_ = os.Remove(keyFile)
			}
		}()
	}
	if err := mach.SSSS.SetKeyData(ctx, key.ID, key.Metadata); err != nil {
		return fmt.Errorf("upload the secret storage key: %w", err)
	}
	keys, err := mach.GenerateCrossSigningKeys()
	if err != nil {
		return err
	}
	if err := mach.UploadCrossSigningKeysToSSSS(ctx, key, keys); err != nil {
		return fmt.Errorf("store the cross-signing keys: %w", err)
	}
	if err := mach.PublishCrossSigningKeys(ctx, keys, b.passwordAuth); err != nil {
		return fmt.Errorf("publish the cross-signing keys: %w", err)
	}
	if err := mach.SSSS.SetDefaultKeyID(ctx, key.ID); err != nil {
		return fmt.Errorf("mark the secret storage key as default: %w", err)
	}
	if err := mach.SignOwnDevice(ctx, mach.OwnIdentity()); err != nil {
		return fmt.Errorf("sign the bot's device: %w", err)
	}
	if err := mach.SignOwnMasterKey(ctx); err != nil {
		return fmt.Errorf("sign the master key: %w", err)
	}
	if generated {
		// Never the key itself: logs are copied, shipped and kept far more
		// widely than DATA_DIR.
		b.log.Warn("Cross-signing is set up for the bot; its new recovery key was written to a file only this user can read. "+
			"Keep a copy somewhere safe and set it as MATRIX_RECOVERY_KEY, so the bot can verify itself again after losing its database",
			"file", keyFile, "user_id", b.opts.UserID)
	} else {
		b.log.Info("Cross-signing is set up for the bot with MATRIX_RECOVERY_KEY")
	}
	return nil
}

// recoveryKeyName is the file, in DATA_DIR/crypto, that receives a recovery
// key made on first start.
const recoveryKeyName = "recovery-key"

// saveRecoveryKey writes a new recovery key to DATA_DIR/crypto/recovery-key,
// mode 0600 in a 0700 directory, and returns the file's path. An existing
// file is never overwritten (it may hold the only copy of a key still in
// use, say after the database was lost): the new key goes to
// recovery-key.1, .2, and so on.
func saveRecoveryKey(dataDir, key string) (string, error) {
	if dataDir == "" {
		return "", errors.New("no data directory (DATA_DIR) to keep it in")
	}
	dir := filepath.Join(dataDir, "crypto")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for i := 0; i < 100; i++ {
		path := filepath.Join(dir, recoveryKeyName)
		if i > 0 {
			path += "." + strconv.Itoa(i)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(key + "\n")
		if err == nil {
			err = f.Sync() // the key must survive a crash right after it is published
		}
		if err = errors.Join(err, f.Close()); err != nil {
			_ = os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("%s holds too many recovery key files; move them away", dir)
}

// secretStorageKey returns the SSSS key from MATRIX_RECOVERY_KEY, or a new
// one (generated = true) when it is unset.
func (b *Bot) secretStorageKey() (key *ssss.Key, generated bool, err error) {
	if b.opts.RecoveryKey == "" {
		key, err = ssss.NewKey("")
		return key, true, err
	}
	raw := utils.DecodeBase58RecoveryKey(b.opts.RecoveryKey)
	if raw == nil {
		return nil, false, errors.New("MATRIX_RECOVERY_KEY is not a valid recovery key")
	}
	key, err = ssss.WrapKey(raw, nil)
	return key, false, err
}

// passwordAuth answers an interactive-auth challenge with MATRIX_PASSWORD.
func (b *Bot) passwordAuth(resp *mautrix.RespUserInteractive) any {
	if b.opts.Password == "" {
		return nil
	}
	return &mautrix.ReqUIAuthLogin{
		BaseAuthData: mautrix.BaseAuthData{Type: mautrix.AuthTypePassword, Session: resp.Session},
		User:         b.opts.UserID,
		Password:     b.opts.Password,
	}
}

// onUndecryptable puts a visible sign on a message the bot could not
// decrypt, instead of silence: a 🔒 reaction, and once per room a short
// notice. mautrix calls it from the sync loop or from its key-wait goroutine.
func (b *Bot) onUndecryptable(evt *event.Event, decErr error) {
	defer b.recoverIn("undecryptable", evt)
	b.deps.Observer.BotDecryptionFailure()
	if b.isBacklog(evt) || evt.Sender == b.mx.cli.UserID {
		return // backlog, or our own echo: nothing to flag
	}
	ctx := withLogger(b.mx.runCtx, eventLogger(b.log, evt))
	b.queue.Enqueue(evt.RoomID, roomqueue.Job{Name: "undecryptable", Ctx: ctx, Run: func(ctx context.Context) error {
		logFrom(ctx, b.log).Warn("could not decrypt a message", "error", decErr)
		b.mx.react(ctx, evt.RoomID, evt.ID, reactUndecryptable)
		rt := b.rooms.get(evt.RoomID)
		if rt.flaggedUndecryptable {
			return nil
		}
		rt.flaggedUndecryptable = true
		_, err := b.mx.sendNotice(ctx, evt, "🔒 I could not decrypt a message here. If it was meant for me, "+
			"please send it again; your client may need to share its keys with my device.")
		return err
	}})
}
