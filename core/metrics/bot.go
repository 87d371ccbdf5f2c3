package metrics

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The bridge's series. bot/ calls these methods through a small interface
// of its own; each takes only closed-set values, never a room or user id.

// BotEvent counts a Matrix event the bridge handled, by kind: "message",
// "image", "voice", "reaction", "redaction", "member", "command",
// "encrypted" or "other".
func (m *Metrics) BotEvent(kind string) {
	if !slices.Contains(botEventKinds(), kind) {
		kind = "other"
	}
	m.botEvents.WithLabelValues(kind).Inc()
}

func botEventKinds() []string {
	return []string{"message", "image", "voice", "reaction", "redaction", "member", "command", "encrypted", "other"}
}

// BotAnswer counts an answer the bridge posted (err nil) or failed to
// produce or post.
func (m *Metrics) BotAnswer(err error) {
	result := "ok"
	if err != nil {
		result = "failed"
	}
	m.botAnswers.WithLabelValues(result).Inc()
}

// BotReaction records the time from a message's arrival at the bridge
// (the sync loop handed it over, decrypted) to the 🧠 reaction.
func (m *Metrics) BotReaction(d time.Duration) { m.botReaction.Observe(d.Seconds()) }

// BotDecryptionFailure counts an event that could not be decrypted.
func (m *Metrics) BotDecryptionFailure() { m.botDecryption.Inc() }

// BotRedactionCascade counts a redaction whose turns (and what was learned
// only from them) were deleted (err nil), or whose deletion failed.
func (m *Metrics) BotRedactionCascade(err error) {
	result := "done"
	if err != nil {
		result = "failed"
	}
	m.botCascades.WithLabelValues(result).Inc()
}

// BotRedactionAbandoned counts a redaction the bridge stopped retrying
// after repeated failures (result "abandoned").
func (m *Metrics) BotRedactionAbandoned() { m.botCascades.WithLabelValues("abandoned").Inc() }

// RegisterBridge registers ada_bot_up, read at each scrape from running:
// 1 while the Matrix bridge is logged in and syncing, 0 while it connects.
// Only a process that runs the bridge has the series.
func RegisterBridge(reg prometheus.Registerer, running func() bool) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ada_bot_up",
		Help: "1 while the Matrix bridge is logged in and syncing, 0 while it is connecting (or stopping); present only in a process that runs the bridge."},
		func() float64 {
			if running() {
				return 1
			}
			return 0
		}))
}
