package media

import "time"

// Status says how current a Listening is.
type Status string

const (
	// StatusPlaying: the provider reports a track playing now.
	StatusPlaying Status = "playing"
	// StatusRecent: nothing is playing, but the latest listen is younger than
	// Options.RecentWindow.
	StatusRecent Status = "recent"
	// StatusIdle: nothing recent. Artist, Track, Release and ListenedAt still
	// describe the latest listen when there is one, so "last played" can be
	// shown; they are empty (and ListenedAt null) when the history is empty.
	StatusIdle Status = "idle"
)

// Source names the provider protocol in every Listening.
const Source = "listenbrainz"

// Listening is the answer of /v1/media/musicprovider.
type Listening struct {
	Source  string `json:"source"`
	Status  Status `json:"status"`
	Artist  string `json:"artist"`
	Track   string `json:"track"`
	Release string `json:"release"`
	// ListenedAt is when the latest listen was recorded; null while playing
	// (the provider does not timestamp a track in progress) or without history.
	// It is encoded as RFC 3339 (ISO 8601) in UTC.
	ListenedAt *time.Time `json:"listened_at"`
}
