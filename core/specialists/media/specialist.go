package media

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/ada-chat/ada/core"
)

// Name is the name the model uses in SPECIALIST_REQUEST[media:{}].
const Name = "media"

// capability is synchronised as this specialist's FAQ entry.
const capability = `Q: Can Ada tell what music I am listening to?
A: Yes, when a ListenBrainz-compatible music provider is configured (MUSICPROVIDER_USER, and MUSICPROVIDER_TOKEN if the account needs one). Ada uses the media specialist to see the track playing right now, or the last track you listened to and when, and can talk about it or recommend similar music. Ada only reads your listening history; she never changes it. Without a configured provider she cannot see what you listen to.`

// The schemas are strings so that every Info gets its own copy: a caller
// that changes the json.RawMessage it was given cannot change ours.
var (
	//go:embed input_schema.json
	inputSchema string
	//go:embed output_schema.json
	outputSchema string
)

// Specialist is the media specialist. It implements core.Specialist.
type Specialist struct {
	client *Client
}

var _ core.Specialist = (*Specialist)(nil)

// NewSpecialist returns the media specialist over c; it is enabled when c is
// configured.
func NewSpecialist(c *Client) *Specialist { return &Specialist{client: c} }

// Info describes media for the catalogue and the prompt.
func (s *Specialist) Info() core.SpecialistInfo {
	return core.SpecialistInfo{
		Name:         Name,
		Description:  "Tells what music the user is listening to right now, or what they listened to last and when, from their ListenBrainz-compatible music provider.",
		Icon:         "🎵",
		Version:      "1.0.0",
		Priority:     core.PriorityMedium,
		Enabled:      s.client.Configured(),
		Tags:         []string{"media", "music", "listening", "now-playing"},
		InputSchema:  json.RawMessage(inputSchema),
		OutputSchema: json.RawMessage(outputSchema),
		Capability:   capability,
	}
}

// Run ignores its arguments and describes the user's listening in a sentence.
// Errors are core.Errors: give the model core.SafeMessage(err).
func (s *Specialist) Run(ctx context.Context, _ core.SpecialistCall) (string, error) {
	l, err := s.client.NowPlaying(ctx)
	if err != nil {
		return "", err
	}
	return describe(l, s.client.now()), nil
}
