package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ada-chat/ada/core"
)

// chatHealth remembers how the bridge's latest chats with the backend went,
// for `!ada status`: the health probe only asks whether the model is there,
// and a model that is there may still time out or fail on every chat (issue
// 27). Safe from any goroutine.
type chatHealth struct {
	mu     sync.Mutex
	recent []chatOutcome // oldest first, at most keptOutcomes
}

// keptOutcomes is how many chats the status looks back on; failingFor is
// how long a failed chat, the latest one, makes the model show ❌.
const (
	keptOutcomes = 5
	failingFor   = time.Hour
)

// chatOutcome is one chat's result: err is "" when it answered.
type chatOutcome struct {
	at  time.Time
	err string
}

// record notes a chat that ended at `at` with err (nil: answered).
func (h *chatHealth) record(at time.Time, err error) {
	o := chatOutcome{at: at}
	if err != nil {
		o.err = outcomeText(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, o)
	if len(h.recent) > keptOutcomes {
		h.recent = h.recent[len(h.recent)-keptOutcomes:]
	}
}

// outcomeText says in a few words why a chat failed.
func outcomeText(err error) string {
	if core.KindOf(err) == core.KindCanceled || errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return strings.TrimSuffix(core.SafeMessage(err), ".")
}

// summary reports whether the model is failing now (the latest chat failed,
// within failingFor) and a note on the recent failures, "" when there were
// none.
func (h *chatHealth) summary(now time.Time) (failing bool, note string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	failed := 0
	for _, o := range h.recent {
		if o.err != "" {
			failed++
		}
	}
	if failed == 0 {
		return false, ""
	}
	latest := h.recent[len(h.recent)-1]
	if latest.err == "" || now.Sub(latest.at) > failingFor {
		return false, fmt.Sprintf("%d of the last %d chats failed", failed, len(h.recent))
	}
	inARow := 0
	for i := len(h.recent) - 1; i >= 0 && h.recent[i].err != ""; i-- {
		inARow++
	}
	return true, fmt.Sprintf("the last %d of %d chats failed, the latest %s ago: %s", inARow, len(h.recent),
		now.Sub(latest.at).Round(time.Second), latest.err)
}
