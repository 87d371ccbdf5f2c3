package media

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/ada-chat/ada/core/internal/remote"

	"github.com/ada-chat/ada/core"
)

// maxBody bounds a provider answer; one listen is well under a KiB.
const maxBody = 1 << 20

// listensResponse is the shape of both /playing-now and /listens.
type listensResponse struct {
	Payload struct {
		Listens []listen `json:"listens"`
	} `json:"payload"`
}

type listen struct {
	ListenedAt    int64 `json:"listened_at"` // Unix seconds; absent while playing
	TrackMetadata struct {
		ArtistName  string `json:"artist_name"`
		TrackName   string `json:"track_name"`
		ReleaseName string `json:"release_name"`
	} `json:"track_metadata"`
}

// playingNow reports the track playing now, and false when there is none.
func (c *Client) playingNow(ctx context.Context) (core.Listening, bool, error) {
	ls, err := c.get(ctx, "playing-now", nil)
	if err != nil || len(ls) == 0 {
		return core.Listening{}, false, err
	}
	return fromListen(ls[0], core.ListeningPlaying, nil), true, nil
}

// latestListen reports the latest recorded listen as recent or idle.
func (c *Client) latestListen(ctx context.Context) (core.Listening, error) {
	ls, err := c.get(ctx, "listens", url.Values{"count": {"1"}})
	if err != nil {
		return core.Listening{}, err
	}
	if len(ls) == 0 {
		return core.Listening{Source: Source, Status: core.ListeningIdle}, nil
	}
	if ls[0].ListenedAt <= 0 {
		return fromListen(ls[0], core.ListeningIdle, nil), nil
	}
	at := time.Unix(ls[0].ListenedAt, 0).UTC()
	status := core.ListeningIdle
	if c.now().Sub(at) < c.recent {
		status = core.ListeningRecent
	}
	return fromListen(ls[0], status, &at), nil
}

func fromListen(l listen, s core.ListeningStatus, at *time.Time) core.Listening {
	m := l.TrackMetadata
	return core.Listening{Source: Source, Status: s, Artist: m.ArtistName, Track: m.TrackName, Release: m.ReleaseName, ListenedAt: at}
}

// provider words the failures of the music provider for the model.
func (c *Client) provider() remote.Service {
	return remote.Service{
		Failed: "music provider request failed", Canceled: "music provider request was canceled", Name: "the provider",
		Why: func(code int) string {
			switch code {
			case http.StatusUnauthorized, http.StatusForbidden:
				return "the provider rejected the token (check MUSICPROVIDER_TOKEN)"
			case http.StatusNotFound:
				return fmt.Sprintf("the provider does not know the user %q", c.user)
			}
			return ""
		},
	}
}

// get fetches /1/user/{user}/{endpoint} and returns its listens.
func (c *Client) get(ctx context.Context, endpoint string, query url.Values) ([]listen, error) {
	u := c.base + "/1/user/" + url.PathEscape(c.user) + "/" + endpoint
	if query != nil {
		u += "?" + query.Encode()
	}
	header := http.Header{"Accept": {"application/json"}}
	if c.token != "" {
		header.Set("Authorization", "Token "+c.token)
	}
	var out listensResponse
	if err := c.provider().GetJSON(ctx, c.http, u, header, &out, maxBody); err != nil {
		return nil, err
	}
	return out.Payload.Listens, nil
}
