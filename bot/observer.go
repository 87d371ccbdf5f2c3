package bot

import "time"

// Observer is told what the bridge does, for its metrics (cmd gives it
// core/metrics). Its arguments are closed sets, never a room, user or
// event id.
type Observer interface {
	// BotEvent: an event handled, by kind ("message", "image", "command",
	// "redaction", "member", "encrypted").
	BotEvent(kind string)
	// BotAnswer: an answer posted (nil), or one that failed.
	BotAnswer(err error)
	// BotReaction: from a message's arrival to its 🧠.
	BotReaction(d time.Duration)
	// BotDecryptionFailure: an event that could not be decrypted.
	BotDecryptionFailure()
	// BotRedactionCascade: a redaction's deletions done (nil), or failed.
	BotRedactionCascade(err error)
	// BotRedactionAbandoned: a redaction that failed too often to retry.
	BotRedactionAbandoned()
}

// noObserver is the Observer of a bridge without metrics.
type noObserver struct{}

func (noObserver) BotEvent(string)           {}
func (noObserver) BotAnswer(error)           {}
func (noObserver) BotReaction(time.Duration) {}
func (noObserver) BotDecryptionFailure()     {}
func (noObserver) BotRedactionCascade(error) {}
func (noObserver) BotRedactionAbandoned()    {}
