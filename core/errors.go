package core

import (
	"errors"
	"fmt"
)

// ErrorKind classifies a domain error. The HTTP adapter maps kinds to status
// codes in one place; the bot maps them to plain-word notices. Kinds are
// append-only.
type ErrorKind int

const (
	KindInternal     ErrorKind = iota // a bug or an unexpected failure: 500, generic detail
	KindInvalid                       // bad input: 400
	KindNotFound                      // 404
	KindUnavailable                   // RAG off or store unreachable: 503
	KindUpstream                      // LLM or another remote dependency failed: 500, safe detail
	KindTooLarge                      // body or file over a limit: 413
	KindUnauthorized                  // missing or wrong API key: 401
	KindCanceled                      // the client went away or the request timed out
)

// kindNames name the kinds in log lines, in the words the wire uses
// (apiserver/wire).
var kindNames = [...]string{KindInternal: "internal", KindInvalid: "invalid", KindNotFound: "not_found",
	KindUnavailable: "unavailable", KindUpstream: "upstream", KindTooLarge: "too_large",
	KindUnauthorized: "unauthorized", KindCanceled: "canceled"}

// String names the kind: log lines say "upstream", not 4.
func (k ErrorKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is Ada's domain error. Message is safe to show to a client; Err is the
// internal cause, which is only logged.
type Error struct {
	Kind    ErrorKind
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error whose message is safe to show to clients.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Wrap attaches an internal cause to a client-safe message.
func Wrap(kind ErrorKind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
}

// KindOf returns the kind of err, KindInternal for foreign errors.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// SafeMessage returns the client-safe message of err. Foreign errors get a
// generic text, because their text may hold SQL, addresses or secrets.
func SafeMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != KindInternal {
		return e.Message
	}
	return "internal error"
}
