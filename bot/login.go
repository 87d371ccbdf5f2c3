package bot

import (
	"context"
	"fmt"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"
)

// deviceDisplayName is how the bot's session shows in members' device lists.
const deviceDisplayName = "Ada bridge"

// login authenticates with MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD. The device
// id is kept in bridge_state, so a password login resumes the same device
// (and so the same encryption identity and verification) after a restart.
func (b *Bot) login(ctx context.Context) error {
	cli, err := mautrix.NewClient(b.opts.Homeserver, id.UserID(b.opts.UserID), "")
	if err != nil {
		return fmt.Errorf("MATRIX_HOMESERVER: %w", err)
	}
	cli.Log = b.zlog
	if b.deps.HTTPClient != nil {
		cli.Client = b.deps.HTTPClient
	}
	stored, err := b.store.state(ctx, stateDeviceID)
	if err != nil {
		return fmt.Errorf("read the bot's device id: %w", err)
	}
	if b.opts.AccessToken != "" {
		err = b.loginWithToken(ctx, cli, id.DeviceID(stored))
	} else {
		err = b.loginWithPassword(ctx, cli, id.DeviceID(stored))
	}
	if err != nil {
		return err
	}
	if err := b.store.setState(ctx, stateDeviceID, cli.DeviceID.String()); err != nil {
		return fmt.Errorf("save the bot's device id: %w", err)
	}
	b.cli = cli
	return nil
}

func (b *Bot) loginWithToken(ctx context.Context, cli *mautrix.Client, stored id.DeviceID) error {
	cli.AccessToken = b.opts.AccessToken
	who, err := cli.Whoami(ctx)
	if err != nil {
		return fmt.Errorf("MATRIX_ACCESS_TOKEN was refused by %s: %w", b.opts.Homeserver, err)
	}
	if who.UserID != cli.UserID {
		return fmt.Errorf("MATRIX_ACCESS_TOKEN belongs to %s, not to MATRIX_USER_ID=%s", who.UserID, cli.UserID)
	}
	if who.DeviceID == "" {
		return fmt.Errorf("the homeserver did not say which device MATRIX_ACCESS_TOKEN belongs to")
	}
	cli.DeviceID = who.DeviceID
	if stored != "" && stored != who.DeviceID {
		// The crypto store is kept per device, so this is safe, but members
		// will see a new, unverified-until-cross-signed device.
		b.log.Warn("MATRIX_ACCESS_TOKEN belongs to another device than last time; the bot starts a new encryption identity",
			"previous_device_id", stored.String(), "device_id", who.DeviceID.String())
	}
	return nil
}

func (b *Bot) loginWithPassword(ctx context.Context, cli *mautrix.Client, stored id.DeviceID) error {
	resp, err := cli.Login(ctx, &mautrix.ReqLogin{
		Type:                     mautrix.AuthTypePassword,
		Identifier:               mautrix.UserIdentifier{Type: mautrix.IdentifierTypeUser, User: cli.UserID.String()},
		Password:                 b.opts.Password,
		DeviceID:                 stored,
		InitialDeviceDisplayName: deviceDisplayName,
		StoreCredentials:         true,
	})
	if err != nil {
		return fmt.Errorf("log in as %s with MATRIX_PASSWORD: %w", cli.UserID, err)
	}
	if stored != "" && resp.DeviceID != stored {
		b.log.Warn("the homeserver gave the bot a new device", "previous_device_id", stored.String(), "device_id", resp.DeviceID.String())
	}
	return nil
}
