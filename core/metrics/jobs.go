package metrics

import (
	"errors"
	"strings"

	"github.com/ada-chat/ada/core"
)

// jobs counts core's background jobs (core.JobObserver).
type jobs struct{ m *Metrics }

var _ core.JobObserver = jobs{}

// jobKind turns core's job name ("memory extraction") into a label.
func jobKind(name string) string {
	k := strings.ReplaceAll(name, " ", "_")
	for _, known := range jobKinds() {
		if k == known {
			return k
		}
	}
	return "other"
}

func (j jobs) JobQueued(name string) {
	k := jobKind(name)
	j.m.jobsQueued.WithLabelValues(k).Inc()
	j.m.jobsPending.WithLabelValues(k).Inc()
}

func (j jobs) JobDone(name string, err error) {
	k := jobKind(name)
	result := "done"
	switch {
	case errors.Is(err, core.ErrJobDropped):
		result = "dropped"
	case err != nil:
		result = "failed"
	}
	j.m.jobsFinished.WithLabelValues(k, result).Inc()
	j.m.jobsPending.WithLabelValues(k).Dec()
}
