package core

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
)

// Chat front-ends (the OpenAI-compatible endpoint, MCP clients) name their
// end users themselves. DECISIONS.md, "Identities, walls and forgetting":
// those users live apart from Matrix rooms and members, and without an
// identity nothing of a chat outlives it unless the front-end asks for
// continuity with a session id.

// matrixSigils start Matrix user ids (@), room ids (!), room aliases (#)
// and the old group ids (+). A room's memories are the scope of its room
// id and a member's page finds what names their user id, so an end user
// named like one would read and write theirs.
const matrixSigils = "@!#+"

// CheckFrontEndUser refuses an end-user id a front-end sent in field (a
// header or a body field) when it is shaped like a Matrix id. "" (no
// identity) is allowed.
func CheckFrontEndUser(field, id string) error {
	id = strings.TrimSpace(id)
	if id == "" || !strings.ContainsRune(matrixSigils, rune(id[0])) {
		return nil
	}
	return Errorf(KindInvalid, "%s: %q starts with %q, as Matrix user, room and alias ids do; users named by a front-end live apart from Matrix rooms and members, so their ids must not start with @, !, # or +",
		field, FirstWords(id), id[:1])
}

// ConversationKey derives conversation ids from what a front-end sends,
// with a server secret (DATA_DIR/secret.key): the same user and opening, or
// the same session id, give the same conversation on this instance, and no
// one without the secret can compute the id.
type ConversationKey struct {
	secret []byte
}

// minSecret is the shortest secret a key accepts: HMAC-SHA256's block of
// security.
const minSecret = 32

// NewConversationKey makes a key of secret, which must hold at least 32
// random bytes.
func NewConversationKey(secret []byte) (ConversationKey, error) {
	if len(secret) < minSecret {
		return ConversationKey{}, fmt.Errorf("the conversation secret has %d bytes, want at least %d", len(secret), minSecret)
	}
	return ConversationKey{secret: append([]byte(nil), secret...)}, nil
}

// FrontEndChat sets req's conversation and automatic memories for a
// front-end's request. req.Entity is the end user ("" for none), session
// the front-end's conversation id ("" for none) and opening the texts that
// begin the conversation (its instructions and first user message), which a
// front-end resends unchanged with every request of it.
//
//   - A session id names the conversation (of this user, or of no one).
//   - Without one, a user's conversation is derived from the opening.
//   - Without either, each request is a new conversation: two anonymous
//     people who open alike must not share one.
//   - Without a user, no automatic memories: they would be global, read by
//     everyone.
//
// A zero key derives nothing (every request is a new conversation): an
// id derived without the secret could be computed by anyone.
func (k ConversationKey) FrontEndChat(req *ChatRequest, session string, opening []string) {
	user, session := strings.TrimSpace(req.Entity), strings.TrimSpace(session)
	switch {
	case len(k.secret) == 0:
		req.ConversationID = NewConversationID()
	case session != "":
		req.ConversationID = k.derive("session", user, session)
	case user != "":
		req.ConversationID = k.derive(append([]string{"opening", user}, opening...)...)
	default:
		req.ConversationID = NewConversationID()
	}
	if user == "" {
		off := false
		req.AutoMemory = &off
	}
}

// derive is conv-<uuid> of the HMAC of the parts, each length-prefixed so
// that no two lists of parts hash alike.
func (k ConversationKey) derive(parts ...string) string {
	mac := hmac.New(sha256.New, k.secret)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		mac.Write(n[:])
		mac.Write([]byte(p))
	}
	sum := mac.Sum(nil)
	// An RFC 9562 version 8 (custom) UUID from the first 16 bytes.
	sum[6] = sum[6]&0x0f | 0x80
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("conv-%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}
