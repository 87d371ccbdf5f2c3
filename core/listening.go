package core

import "time"

// Listening is what the user listens to, as the music provider reports it:
// the answer of /v1/media/musicprovider and what the media specialist
// describes to the model.
type Listening struct {
	Source  string          `json:"source"`
	Status  ListeningStatus `json:"status"`
	Artist  string          `json:"artist"`
	Track   string          `json:"track"`
	Release string          `json:"release"`
	// ListenedAt is when the latest listen was recorded; null while playing
	// (the provider does not timestamp a track in progress) or without history.
	// It is encoded as RFC 3339 (ISO 8601) in UTC.
	ListenedAt *time.Time `json:"listened_at"`
}

// ListeningStatus says how current a Listening is.
type ListeningStatus string

const (
	// ListeningPlaying: the provider reports a track playing now.
	ListeningPlaying ListeningStatus = "playing"
	// ListeningRecent: nothing is playing, but the latest listen is recent
	// (the media specialist's RecentWindow).
	ListeningRecent ListeningStatus = "recent"
	// ListeningIdle: nothing recent. Artist, Track, Release and ListenedAt
	// still describe the latest listen when there is one, so "last played"
	// can be shown; they are empty (and ListenedAt null) when the history is
	// empty.
	ListeningIdle ListeningStatus = "idle"
)
