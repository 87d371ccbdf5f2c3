package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

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
	cli.Syncer = newRetryingSyncer()
	if b.deps.HTTPClient != nil {
		cli.Client = b.deps.HTTPClient
	}
	// The login is the first request, and the one that fails while the
	// homeserver is down: its failure is reported once per try by
	// connectWithRetry, so mautrix's own request log is kept at debug.
	ctx = b.quietZlog.WithContext(ctx)
	stored, err := b.bridge.State(ctx, stateDeviceID)
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
	if err := b.bridge.SetState(ctx, stateDeviceID, cli.DeviceID.String()); err != nil {
		return fmt.Errorf("save the bot's device id: %w", err)
	}
	b.mx.cli = cli
	return nil
}

func (b *Bot) loginWithToken(ctx context.Context, cli *mautrix.Client, stored id.DeviceID) error {
	cli.AccessToken = b.opts.AccessToken
	who, err := cli.Whoami(ctx)
	if err != nil {
		return b.loginFailed("MATRIX_ACCESS_TOKEN", err)
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
		return b.loginFailed("MATRIX_PASSWORD", err)
	}
	if stored != "" && resp.DeviceID != stored {
		b.log.Warn("the homeserver gave the bot a new device", "previous_device_id", stored.String(), "device_id", resp.DeviceID.String())
	}
	return nil
}

// unreachableError is a homeserver that could not be reached (connection
// refused, host not found, timeout) or that answered with a server error:
// worth retrying.
type unreachableError struct {
	Homeserver string
	Reason     string // in words: "connection refused", "HTTP 502"
	Err        error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach the homeserver %s (MATRIX_HOMESERVER): %s", e.Homeserver, e.Reason)
}

func (e *unreachableError) Unwrap() error { return e.Err }

// refusedError is a homeserver that refused the bot's credentials
// (M_UNKNOWN_TOKEN, M_FORBIDDEN, HTTP 401 or 403): waiting cannot fix it.
type refusedError struct {
	Homeserver string
	Setting    string // MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD
	UserID     string
	Err        error
}

func (e *refusedError) Error() string {
	fix := "make a new access token for " + e.UserID
	if e.Setting == "MATRIX_PASSWORD" {
		fix = "check the password of " + e.UserID
	}
	return fmt.Sprintf("the homeserver %s refused %s (%s): %s", e.Homeserver, e.Setting, respCode(e.Err), fix)
}

func (e *refusedError) Unwrap() error { return e.Err }

// loginFailed tells an unreachable homeserver from refused credentials.
func (b *Bot) loginFailed(setting string, err error) error {
	if reason, ok := unreachableReason(err); ok {
		return &unreachableError{Homeserver: b.opts.Homeserver, Reason: reason, Err: err}
	}
	var he mautrix.HTTPError
	if errors.Is(err, mautrix.MUnknownToken) || errors.Is(err, mautrix.MForbidden) ||
		(errors.As(err, &he) && (he.IsStatus(http.StatusUnauthorized) || he.IsStatus(http.StatusForbidden))) {
		return &refusedError{Homeserver: b.opts.Homeserver, Setting: setting, UserID: b.opts.UserID, Err: err}
	}
	return fmt.Errorf("log in to %s as %s with %s: %w", b.opts.Homeserver, b.opts.UserID, setting, err)
}

// unreachableReason names a network failure or a server-side error (5xx,
// 429) in words; ok is false for anything else.
func unreachableReason(err error) (string, bool) {
	var he mautrix.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		code := he.Response.StatusCode
		return fmt.Sprintf("HTTP %d %s", code, http.StatusText(code)), code >= 500 || code == http.StatusTooManyRequests
	}
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", true
	case errors.As(err, &dnsErr):
		return "host not found", true
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out", true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed unexpectedly", true
	case errors.As(err, &ne):
		return "network error", true
	}
	return "", false
}

// respCode is the Matrix error code and status of a refusal, e.g.
// "M_UNKNOWN_TOKEN, HTTP 401".
func respCode(err error) string {
	var he mautrix.HTTPError
	if !errors.As(err, &he) || he.Response == nil {
		return err.Error()
	}
	if he.RespError != nil && he.RespError.ErrCode != "" {
		return fmt.Sprintf("%s, HTTP %d", he.RespError.ErrCode, he.Response.StatusCode)
	}
	return fmt.Sprintf("HTTP %d", he.Response.StatusCode)
}

// Keys of bridge_state.
const (
	stateDeviceID  = "device_id"
	statePickleKey = "pickle_key"
)
