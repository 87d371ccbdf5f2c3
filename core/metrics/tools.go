package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Tools counts the calls of the MCP servers' tools. Its "tool" label is
// the specialist name (server.tool): a closed set, fixed by the operator's
// MCP_SERVERS_FILE when Ada starts.
type Tools struct {
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewTools registers the MCP tool collectors on reg.
func NewTools(reg prometheus.Registerer) *Tools {
	f := factory{reg}
	return &Tools{
		calls:    f.counter("ada_mcp_tool_calls_total", "Calls of MCP servers' tools, by tool (server.tool).", "tool"),
		errors:   f.counter("ada_mcp_tool_errors_total", "MCP tool calls that failed (an error result, a timeout, a server down), by tool.", "tool"),
		duration: f.histogram("ada_mcp_tool_duration_seconds", "Duration of MCP tool calls, by tool.", slowBuckets(), "tool"),
	}
}

// Observe counts one call of tool.
func (t *Tools) Observe(tool string, err error, d time.Duration) {
	t.calls.WithLabelValues(tool).Inc()
	if err != nil {
		t.errors.WithLabelValues(tool).Inc()
	}
	t.duration.WithLabelValues(tool).Observe(d.Seconds())
}
