package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ada-chat/ada/core"
)

// secretFile, in DATA_DIR, holds the server secret that keys the ids Ada
// derives from what clients send (core.ConversationKey), so that no one
// outside can compute them. Made at the first start; losing it only makes
// front-ends' conversations without a session id start afresh.
const secretFile = "secret.key"

// secretBytes is the secret's size: HMAC-SHA256's.
const secretBytes = 32

// conversationKey reads DATA_DIR's secret, making it on the first start.
// The caller holds DATA_DIR's lock, so no other Ada makes one meanwhile.
func conversationKey(dir string) (core.ConversationKey, error) {
	path := filepath.Join(dir, secretFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = makeSecret(dir, path)
	}
	if err != nil {
		return core.ConversationKey{}, dataDirError(dir, path, err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(secret) != secretBytes {
		return core.ConversationKey{}, fmt.Errorf("DATA_DIR=%s: %s is not a secret Ada made (%d hexadecimal bytes): restore it from a backup, or delete it to make a new one (front-ends' conversations without a session id then start afresh)",
			dir, path, secretBytes)
	}
	return core.NewConversationKey(secret)
}

// makeSecret writes a new random secret, readable by Ada's user alone, to
// a temporary file first, so that a crash never leaves half a secret.
func makeSecret(dir, path string) ([]byte, error) {
	secret := make([]byte, secretBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	data := []byte(hex.EncodeToString(secret) + "\n")
	f, err := os.CreateTemp(dir, secretFile+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	// CreateTemp makes the file 0600 already; said here for the reader.
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, err
	}
	return data, os.Rename(f.Name(), path)
}
