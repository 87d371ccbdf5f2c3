package websearch

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/ada-chat/ada/core"
)

// Name is the name the model uses in SPECIALIST_REQUEST[web_search:{...}].
const Name = "web_search"

// defaultTimeout bounds one search when Options.Timeout is zero. Metasearch
// fans out to several engines, so a few seconds are normal.
const defaultTimeout = 10 * time.Second

// capability is synchronised as this specialist's FAQ entry. It describes the
// call in words, not marker syntax, so that quoting it never triggers a call.
const capability = `Q: Can Ada search the web for current information?
A: Yes, when a search service is configured (WEBSEARCH_URL). Ada uses the web_search specialist for news, current events, prices, schedules, releases and anything else that may have changed after her training data. She asks it with a search query (and optionally how many results, 1 to 10, default 5), reads the numbered results with their titles, URLs and snippets, and answers from them, naming her sources. Without a configured search service, Ada says she cannot look things up and answers from what she already knows.`

// The schemas are strings so that every Info gets its own copy: a caller
// that changes the json.RawMessage it was given cannot change ours.
var (
	//go:embed input_schema.json
	inputSchema string
	//go:embed output_schema.json
	outputSchema string
)

// Options configures the specialist. An empty URL leaves it listed but
// disabled.
type Options struct {
	// URL is the search service's base address (WEBSEARCH_URL), e.g.
	// http://searxng:8080; /search is appended to it.
	URL string
	// HTTPClient defaults to a new client with Go's default transport.
	HTTPClient *http.Client
	// Timeout bounds one search; defaultTimeout when zero.
	Timeout time.Duration
}

// Specialist is the web_search specialist. It implements core.Specialist.
type Specialist struct {
	endpoint *url.URL // nil when disabled
	client   *http.Client
	timeout  time.Duration
}

var _ core.Specialist = (*Specialist)(nil)

// New checks opts and returns the specialist. It fails only for a URL that is
// set but is not an absolute http or https address.
func New(opts Options) (*Specialist, error) {
	s := &Specialist{client: opts.HTTPClient, timeout: opts.Timeout}
	if s.client == nil {
		s.client = &http.Client{}
	}
	if s.timeout <= 0 {
		s.timeout = defaultTimeout
	}
	if opts.URL == "" {
		return s, nil
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, core.Errorf(core.KindInvalid, "WEBSEARCH_URL must be an http or https address such as http://searxng:8080, got %q", opts.URL)
	}
	s.endpoint = u.JoinPath("search")
	return s, nil
}

// Info describes web_search for the catalogue and the prompt.
func (s *Specialist) Info() core.SpecialistInfo {
	return core.SpecialistInfo{
		Name:         Name,
		Description:  "Searches the web for current information (news, current events, prices, schedules, recent releases) and returns numbered results with title, URL and snippet.",
		Icon:         "🔍",
		Version:      "1.0.0",
		Priority:     core.PriorityHigh,
		Enabled:      s.endpoint != nil,
		Tags:         []string{"web", "search", "current-events", "real-time"},
		InputSchema:  json.RawMessage(inputSchema),
		OutputSchema: json.RawMessage(outputSchema),
		Capability:   capability,
	}
}
