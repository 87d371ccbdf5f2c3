package core

import (
	"strings"
	"testing"
)

func TestSpokenText(t *testing.T) {
	for _, tc := range []struct{ speaker, text, want string }{
		{"Priya", "I love climbing.", "Priya: I love climbing."},
		{"  Priya \n Shah ", "hi", "Priya Shah: hi"},
		{"", "I love climbing.", "I love climbing."},
		{" \t", "hi", "hi"},
	} {
		if got := SpokenText(tc.speaker, tc.text); got != tc.want {
			t.Errorf("SpokenText(%q, %q) = %q, want %q", tc.speaker, tc.text, got, tc.want)
		}
	}
}

// TestWhoIsTalkingOutsideARoom: an API client that names the speaker of a
// conversation between several people is not told it is a chat room.
func TestWhoIsTalkingOutsideARoom(t *testing.T) {
	s := &Service{opts: DefaultOptions()}
	api := s.whoIsTalking(ChatRequest{Speaker: &Speaker{Name: "Priya"}})
	if strings.Contains(api, "chat room") || !strings.Contains(api, "from Priya.") {
		t.Errorf("API conversation: %q", api)
	}
	room := s.whoIsTalking(ChatRequest{RoomID: "!r:example.org", Speaker: &Speaker{Name: "Priya", UserID: "@priya:example.org"}})
	if !strings.Contains(room, "in a chat room with several members") || !strings.Contains(room, "from Priya (@priya:example.org).") {
		t.Errorf("room: %q", room)
	}
	// The memories' heading names no room either: the section is the
	// conversation's, and the context guide quotes the heading.
	if h := memoriesHeading(ChatRequest{Speaker: &Speaker{Name: "Priya"}}); strings.Contains(h, "chat room") {
		t.Errorf("API conversation's memories heading: %q", h)
	}
	if h := memoriesHeading(ChatRequest{RoomID: "!r:example.org", Speaker: &Speaker{Name: "Priya"}}); h != "Memories of this chat room" {
		t.Errorf("room's memories heading: %q", h)
	}
}
