package core

import "slices"

// modelTally is what an answer's model calls add up to besides the text:
// their token counts, and the calls of the client's tools, joined from
// their streamed pieces by index.
type modelTally struct {
	usage Usage
	calls []ToolCall
	index []int // the stream index of each call
}

func (t *modelTally) addCall(d ToolCallDelta) {
	i := slices.Index(t.index, d.Index)
	if i < 0 {
		t.index = append(t.index, d.Index)
		t.calls = append(t.calls, ToolCall{Type: "function"})
		i = len(t.calls) - 1
	}
	c := &t.calls[i]
	if d.ID != "" {
		c.ID = d.ID
	}
	c.Function.Name += d.Name
	c.Function.Arguments += d.Arguments
}

// toolCalls are the whole calls, in the order they began.
func (t *modelTally) toolCalls() []ToolCall { return t.calls }
