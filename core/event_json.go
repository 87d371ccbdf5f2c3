package core

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON writes the SSE wire shape of an event (SPEC.md § Events):
// done carries the chat result's fields flat beside "type".
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventThinking, EventToken:
		return json.Marshal(struct {
			Type    EventType `json:"type"`
			Content string    `json:"content"`
		}{e.Type, e.Content})
	case EventSpecialistResult:
		return json.Marshal(struct {
			Type       EventType `json:"type"`
			Specialist string    `json:"specialist"`
			OK         bool      `json:"ok"`
			Content    string    `json:"content"`
		}{e.Type, e.Specialist, e.OK, e.Content})
	case EventDone:
		if e.Done == nil {
			return nil, fmt.Errorf("done event without a result")
		}
		return json.Marshal(struct {
			Type EventType `json:"type"`
			*ChatResult
		}{e.Type, e.Done})
	case EventError:
		return json.Marshal(struct {
			Type  EventType `json:"type"`
			Error string    `json:"error"`
		}{e.Type, e.Error})
	default:
		return nil, fmt.Errorf("unknown event type %q", e.Type)
	}
}

// UnmarshalJSON reads the wire shape back (the bridge's HTTP client uses it).
func (e *Event) UnmarshalJSON(data []byte) error {
	var head struct {
		Type       EventType `json:"type"`
		Content    string    `json:"content"`
		Specialist string    `json:"specialist"`
		OK         bool      `json:"ok"`
		Error      string    `json:"error"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	*e = Event{Type: head.Type, Content: head.Content, Specialist: head.Specialist, OK: head.OK, Error: head.Error}
	switch head.Type {
	case EventThinking, EventToken, EventSpecialistResult, EventError:
		return nil
	case EventDone:
		var r ChatResult
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		e.Done = &r
		return nil
	default:
		return fmt.Errorf("unknown event type %q", head.Type)
	}
}
