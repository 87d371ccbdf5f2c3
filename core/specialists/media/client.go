package media

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ada-chat/ada/core"
)

// Defaults used when the Options field is zero.
const (
	DefaultURL          = "https://api.listenbrainz.org"
	DefaultCacheTTL     = 30 * time.Second
	DefaultTimeout      = 10 * time.Second
	DefaultRecentWindow = 30 * time.Minute
)

// Options configures a Client. A Client without User is not configured.
type Options struct {
	URL  string // MUSICPROVIDER_URL; DefaultURL when empty
	User string // MUSICPROVIDER_USER
	// Token (MUSICPROVIDER_TOKEN) is sent as "Authorization: Token <token>"
	// and nowhere else: not in URLs, errors or logs.
	Token      string `json:"-"`
	HTTPClient *http.Client
	// CacheTTL is how long an answer is reused; it spares the provider's rate
	// limit when a chat and the endpoint ask at once. DefaultCacheTTL when zero.
	CacheTTL time.Duration
	// Timeout bounds one NowPlaying lookup (up to two requests).
	Timeout time.Duration
	// RecentWindow is how old the latest listen may be for core.ListeningRecent.
	RecentWindow time.Duration
}

// Client asks a ListenBrainz-compatible provider what the user listens to.
// It is safe for concurrent use.
type Client struct {
	base   string // without a trailing slash
	user   string
	token  string
	http   *http.Client
	ttl    time.Duration
	limit  time.Duration
	recent time.Duration
	now    func() time.Time // time.Now; replaced in tests

	mu       sync.Mutex
	cached   core.Listening
	cachedAt time.Time // zero: nothing cached
}

// NewClient checks opts and returns a Client. It fails only for a URL that is
// not an absolute http or https address.
func NewClient(opts Options) (*Client, error) {
	c := &Client{
		base:   strings.TrimRight(opts.URL, "/"),
		user:   opts.User,
		token:  opts.Token,
		http:   opts.HTTPClient,
		ttl:    orDefault(opts.CacheTTL, DefaultCacheTTL),
		limit:  orDefault(opts.Timeout, DefaultTimeout),
		recent: orDefault(opts.RecentWindow, DefaultRecentWindow),
		now:    time.Now,
	}
	if c.base == "" {
		c.base = DefaultURL
	}
	if u, err := url.Parse(c.base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, core.Errorf(core.KindInvalid, "MUSICPROVIDER_URL must be an http or https address such as %s, got %q", DefaultURL, opts.URL)
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c, nil
}

// Configured reports whether a user is set. Callers answer {} when it is not.
func (c *Client) Configured() bool { return c.user != "" }

// NowPlaying returns what the user is playing now or played last, from the
// cache when it is younger than CacheTTL. Errors are core.Errors whose
// Message is safe for clients and the model.
func (c *Client) NowPlaying(ctx context.Context) (core.Listening, error) {
	if !c.Configured() {
		return core.Listening{}, core.Errorf(core.KindUnavailable, "the music provider is not configured (MUSICPROVIDER_USER is empty)")
	}
	if l, ok := c.fromCache(); ok {
		return l, nil
	}
	// The lock is not held during the lookup: a slow provider must not block
	// callers whose context ends sooner. Two concurrent misses both ask.
	l, err := c.lookup(ctx)
	if err != nil {
		return core.Listening{}, err
	}
	c.mu.Lock()
	c.cached, c.cachedAt = l, c.now()
	c.mu.Unlock()
	return l, nil
}

func (c *Client) fromCache() (core.Listening, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cachedAt.IsZero() || c.now().Sub(c.cachedAt) >= c.ttl {
		return core.Listening{}, false
	}
	return c.cached, true
}

// lookup asks playing-now first, then the latest listen.
func (c *Client) lookup(ctx context.Context) (core.Listening, error) {
	ctx, cancel := context.WithTimeout(ctx, c.limit)
	defer cancel()
	l, ok, err := c.playingNow(ctx)
	if err != nil || ok {
		return l, err
	}
	return c.latestListen(ctx)
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
