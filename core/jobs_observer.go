package core

import "errors"

// JobObserver is told about background jobs (summaries, memory extractions,
// summary rewrites after a deletion): cmd gives core/metrics' here. Calls
// come from any goroutine; they must not block.
type JobObserver interface {
	// JobQueued is called when a job named name is queued.
	JobQueued(name string)
	// JobDone is called once per queued job when it ends: err is nil when it
	// succeeded, ErrJobDropped when it never ran or was cut short (a full
	// queue, shutdown), or its failure.
	JobDone(name string, err error)
}

// ErrJobDropped is JobDone's error for a job that was queued but never ran.
var ErrJobDropped = errors.New("background job dropped")

// noJobObserver observes nothing.
type noJobObserver struct{}

func (noJobObserver) JobQueued(string)      {}
func (noJobObserver) JobDone(string, error) {}
