package bottest

import (
	"crypto/rand"
	"testing"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/internal/dendritetest"
)

// Homeserver is a running throw-away Dendrite (bot/internal/dendritetest),
// named here so that tests outside bot/ can use it.
type Homeserver = dendritetest.Server

// StartHomeserver starts a homeserver for t; it is stopped when t ends.
// Without the binaries a local run skips and a CI run fails.
func StartHomeserver(t testing.TB) *Homeserver { return dendritetest.Start(t) }

// Account is a registered user the bridge logs in as, with the access
// token and device of its registration.
type Account struct {
	UserID      id.UserID
	Password    string
	AccessToken string
	DeviceID    id.DeviceID
}

// RegisterAccount creates a user with a random password.
func RegisterAccount(t testing.TB, hs *Homeserver, localpart string) Account {
	t.Helper()
	pw := rand.Text()
	userID, token, device := hs.RegisterUser(t, localpart, pw, false)
	return Account{UserID: id.UserID(userID), Password: pw, AccessToken: token, DeviceID: id.DeviceID(device)}
}
