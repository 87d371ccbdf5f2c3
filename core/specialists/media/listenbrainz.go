package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

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
func (c *Client) playingNow(ctx context.Context) (Listening, bool, error) {
	ls, err := c.get(ctx, "playing-now", nil)
	if err != nil || len(ls) == 0 {
		return Listening{}, false, err
	}
	return fromListen(ls[0], StatusPlaying, nil), true, nil
}

// latestListen reports the latest recorded listen as recent or idle.
func (c *Client) latestListen(ctx context.Context) (Listening, error) {
	ls, err := c.get(ctx, "listens", url.Values{"count": {"1"}})
	if err != nil {
		return Listening{}, err
	}
	if len(ls) == 0 {
		return Listening{Source: Source, Status: StatusIdle}, nil
	}
	if ls[0].ListenedAt <= 0 {
		return fromListen(ls[0], StatusIdle, nil), nil
	}
	at := time.Unix(ls[0].ListenedAt, 0).UTC()
	status := StatusIdle
	if c.now().Sub(at) < c.recent {
		status = StatusRecent
	}
	return fromListen(ls[0], status, &at), nil
}

func fromListen(l listen, s Status, at *time.Time) Listening {
	m := l.TrackMetadata
	return Listening{Source: Source, Status: s, Artist: m.ArtistName, Track: m.TrackName, Release: m.ReleaseName, ListenedAt: at}
}

// get fetches /1/user/{user}/{endpoint} and returns its listens.
func (c *Client) get(ctx context.Context, endpoint string, query url.Values) ([]listen, error) {
	u := c.base + "/1/user/" + url.PathEscape(c.user) + "/" + endpoint
	if query != nil {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, core.Wrap(core.KindInternal, err, "music provider request failed: could not build the request")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Token "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp.StatusCode)
	}
	var out listensResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&out); err != nil {
		if ctx.Err() != nil {
			return nil, transportError(ctx, err)
		}
		return nil, core.Wrap(core.KindUpstream, err, "music provider request failed: the provider sent a malformed answer")
	}
	return out.Payload.Listens, nil
}

func transportError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return core.Wrap(core.KindUpstream, err, "music provider request failed: the provider did not answer in time")
	case errors.Is(err, context.Canceled):
		return core.Wrap(core.KindCanceled, err, "music provider request was canceled")
	default:
		return core.Wrap(core.KindUpstream, err, "music provider request failed: the provider could not be reached")
	}
}

func (c *Client) statusError(code int) error {
	var why string
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		why = "the provider rejected the token (check MUSICPROVIDER_TOKEN)"
	case code == http.StatusNotFound:
		why = fmt.Sprintf("the provider does not know the user %q", c.user)
	case code == http.StatusTooManyRequests:
		why = "the provider is rate-limiting requests"
	case code >= 500:
		why = "the provider had an internal error"
	default:
		why = "the provider answered with an unexpected status"
	}
	return core.Errorf(core.KindUpstream, "music provider request failed: %s (HTTP %d)", why, code)
}
