package dendritetest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"
)

// RegisterUser creates an account through the Synapse-compatible shared-secret
// admin API that dendrite implements (clientapi/routing/register_secret.go):
// GET a nonce, then POST the credentials with an HMAC-SHA1, keyed by the
// shared secret, over "nonce\x00user\x00password\x00admin|notadmin".
//
// The returned device ID is always "shared_secret_registration" (dendrite
// hard-codes it); log in with the password to get a separate device.
func (s *Server) RegisterUser(t testing.TB, localpart, password string, admin bool) (userID, accessToken, deviceID string) {
	t.Helper()
	ctx := t.Context()
	url := s.url + "/_synapse/admin/v1/register"

	var nonce struct {
		Nonce string `json:"nonce"`
	}
	if err := s.doJSON(ctx, http.MethodGet, url, nil, &nonce); err != nil {
		t.Fatalf("dendritetest: register %q: get nonce: %v", localpart, err)
	}

	kind := "notadmin"
	if admin {
		kind = "admin"
	}
	mac := hmac.New(sha1.New, []byte(s.sharedSecret))
	mac.Write([]byte(nonce.Nonce + "\x00" + localpart + "\x00" + password + "\x00" + kind))

	req := map[string]any{
		"nonce":    nonce.Nonce,
		"username": localpart,
		"password": password,
		"admin":    admin,
		"mac":      hex.EncodeToString(mac.Sum(nil)),
	}
	var resp struct {
		UserID      string `json:"user_id"`
		AccessToken string `json:"access_token"`
		DeviceID    string `json:"device_id"`
	}
	if err := s.doJSON(ctx, http.MethodPost, url, req, &resp); err != nil {
		t.Fatalf("dendritetest: register %q: %v", localpart, err)
	}
	if resp.UserID == "" || resp.AccessToken == "" {
		t.Fatalf("dendritetest: register %q: incomplete response %+v", localpart, resp)
	}
	return resp.UserID, resp.AccessToken, resp.DeviceID
}

// Client registers a new non-admin user with a random password and returns a
// mautrix client authenticated as that user. Localparts must be unique per
// server: lowercase letters, digits and "_-+=./", not starting with '_'.
func (s *Server) Client(t testing.TB, localpart string) *mautrix.Client {
	t.Helper()
	userID, token, deviceID := s.RegisterUser(t, localpart, rand.Text(), false)
	cli, err := mautrix.NewClient(s.url, id.UserID(userID), token)
	if err != nil {
		t.Fatalf("dendritetest: mautrix client for %s: %v", userID, err)
	}
	cli.DeviceID = id.DeviceID(deviceID)
	return cli
}

// doJSON sends body (if non-nil) as JSON and decodes a 200 response into out.
func (s *Server) doJSON(ctx context.Context, method, url string, body, out any) error {
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, reader)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, url, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}
