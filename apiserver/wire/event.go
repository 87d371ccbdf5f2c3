package wire

import (
	"encoding/json"
	"fmt"

	"github.com/ada-chat/ada/core"
)

// EncodeEvent writes an event in its SSE wire shape (SPEC.md § Events):
// done carries the chat result's fields flat beside "type"; error carries
// the client-safe message and the error's kind.
func EncodeEvent(e core.Event) ([]byte, error) {
	switch e.Type {
	case core.EventThinking, core.EventToken:
		return json.Marshal(struct {
			Type    core.EventType `json:"type"`
			Content string         `json:"content"`
		}{e.Type, e.Content})
	case core.EventSpecialistResult:
		return json.Marshal(struct {
			Type       core.EventType `json:"type"`
			Specialist string         `json:"specialist"`
			OK         bool           `json:"ok"`
			Content    string         `json:"content"`
		}{e.Type, e.Specialist, e.OK, e.Content})
	case core.EventDone:
		if e.Done == nil {
			return nil, fmt.Errorf("done event without a result")
		}
		return json.Marshal(struct {
			Type core.EventType `json:"type"`
			*core.ChatResult
		}{e.Type, e.Done})
	case core.EventError:
		return json.Marshal(struct {
			Type  core.EventType `json:"type"`
			Error string         `json:"error"`
			Kind  string         `json:"kind"`
		}{e.Type, e.Error, kindName(e.Kind)})
	default:
		return nil, fmt.Errorf("unknown event type %q", e.Type)
	}
}

// ErrorEvent is the error event that ends a stream which failed with err.
func ErrorEvent(err error) core.Event {
	return core.Event{Type: core.EventError, Error: core.SafeMessage(err), Kind: core.KindOf(err)}
}

// DecodeEvent reads an event back (the bridge's HTTP client uses it).
func DecodeEvent(data []byte) (core.Event, error) {
	var head struct {
		Type       core.EventType `json:"type"`
		Content    string         `json:"content"`
		Specialist string         `json:"specialist"`
		OK         bool           `json:"ok"`
		Error      string         `json:"error"`
		Kind       string         `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return core.Event{}, err
	}
	e := core.Event{Type: head.Type, Content: head.Content, Specialist: head.Specialist, OK: head.OK, Error: head.Error}
	switch head.Type {
	case core.EventThinking, core.EventToken, core.EventSpecialistResult:
		return e, nil
	case core.EventError:
		e.Kind = kindNamed(head.Kind)
		return e, nil
	case core.EventDone:
		var r core.ChatResult
		if err := json.Unmarshal(data, &r); err != nil {
			return core.Event{}, err
		}
		e.Done = &r
		return e, nil
	default:
		return core.Event{}, fmt.Errorf("unknown event type %q", head.Type)
	}
}
