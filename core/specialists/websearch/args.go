package websearch

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

const (
	defaultResults = 5
	maxResults     = 10
	maxQueryRunes  = 500
)

// args are the validated arguments of one call.
type args struct {
	query string
	n     int
}

// parseArgs validates raw against input_schema.json. Its errors go back to the
// model, so they say what a correct call looks like.
func parseArgs(raw json.RawMessage) (args, error) {
	var in struct {
		Query      *string  `json:"query"`
		NumResults *float64 `json:"num_results"`
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return args{}, core.Wrap(core.KindInvalid, err, `web_search arguments must be a JSON object like {"query": "...", "num_results": 5}`)
	}
	if in.Query == nil || strings.TrimSpace(*in.Query) == "" {
		return args{}, core.Errorf(core.KindInvalid, `web_search needs a non-blank "query" string`)
	}
	a := args{query: strings.TrimSpace(*in.Query), n: defaultResults}
	if utf8.RuneCountInString(a.query) > maxQueryRunes {
		return args{}, core.Errorf(core.KindInvalid, "web_search query is longer than %d characters", maxQueryRunes)
	}
	if in.NumResults != nil {
		// A float so that 3.0 is accepted, as JSON does not tell it from 3.
		f := *in.NumResults
		if f != math.Trunc(f) || f < 1 || f > maxResults {
			return args{}, core.Errorf(core.KindInvalid, `web_search "num_results" must be a whole number from 1 to %d`, maxResults)
		}
		a.n = int(f)
	}
	return a, nil
}
