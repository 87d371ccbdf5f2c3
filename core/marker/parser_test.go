package marker

import (
	"strings"
	"testing"
)

// outcome is everything a parser produced for one stream: the text emitted
// between markers (one segment more than there are requests) and the requests.
type outcome struct {
	Segments []string
	Requests []req
}

// req is a Request with its error reduced to text, so outcomes compare with ==.
type req struct {
	Name, Args, Raw, Err string
}

func toReq(r *Request) req {
	out := req{Name: r.Name, Args: string(r.Args), Raw: r.Raw}
	if r.Err != nil {
		out.Err = r.Err.Error()
	}
	return out
}

// run feeds chunks to a fresh parser and collects every marker, continuing
// after each one as a caller that wants all markers would.
func run(chunks []string) outcome {
	var o outcome
	var seg strings.Builder
	p := NewParser()
	collect := func(text string, r *Request) bool {
		seg.WriteString(text)
		if r == nil {
			return false
		}
		o.Segments = append(o.Segments, seg.String())
		o.Requests = append(o.Requests, toReq(r))
		seg.Reset()
		return true
	}
	for _, c := range chunks {
		for more := collect(p.Feed(c)); more; more = collect(p.Feed("")) {
		}
	}
	for collect(p.Flush()) {
	}
	o.Segments = append(o.Segments, seg.String())
	return o
}

func equal(a, b outcome) bool {
	if len(a.Segments) != len(b.Segments) || len(a.Requests) != len(b.Requests) {
		return false
	}
	for i := range a.Segments {
		if a.Segments[i] != b.Segments[i] {
			return false
		}
	}
	for i := range a.Requests {
		if a.Requests[i] != b.Requests[i] {
			return false
		}
	}
	return true
}

const (
	errJSON  = "malformed specialist request: the arguments are not valid JSON"
	errUnter = "malformed specialist request: the answer ended before the closing ']'"
)

var parserCases = []struct {
	name string
	in   string
	want outcome
}{
	{"plain text", "Hello, world.", outcome{Segments: []string{"Hello, world."}}},
	{"empty", "", outcome{Segments: []string{""}}},
	{
		"marker alone",
		`SPECIALIST_REQUEST[web_search:{"query":"weather"}]`,
		outcome{
			Segments: []string{"", ""},
			Requests: []req{{Name: "web_search", Args: `{"query":"weather"}`, Raw: `SPECIALIST_REQUEST[web_search:{"query":"weather"}]`}},
		},
	},
	{
		"text before and after",
		`Let me check. SPECIALIST_REQUEST[web_search:{"query":"x"}] Done.`,
		outcome{
			Segments: []string{"Let me check. ", " Done."},
			Requests: []req{{Name: "web_search", Args: `{"query":"x"}`, Raw: `SPECIALIST_REQUEST[web_search:{"query":"x"}]`}},
		},
	},
	{
		"bracket and brace inside a JSON string",
		`SPECIALIST_REQUEST[web_search:{"query":"a] b} c[ {d"}]!`,
		outcome{
			Segments: []string{"", "!"},
			Requests: []req{{Name: "web_search", Args: `{"query":"a] b} c[ {d"}`, Raw: `SPECIALIST_REQUEST[web_search:{"query":"a] b} c[ {d"}]`}},
		},
	},
	{
		"nested objects and arrays",
		`SPECIALIST_REQUEST[x:{"a":{"b":[1,{"c":[]}]},"d":[]}]`,
		outcome{
			Segments: []string{"", ""},
			Requests: []req{{Name: "x", Args: `{"a":{"b":[1,{"c":[]}]},"d":[]}`, Raw: `SPECIALIST_REQUEST[x:{"a":{"b":[1,{"c":[]}]},"d":[]}]`}},
		},
	},
	{
		"escaped quotes and backslashes",
		`SPECIALIST_REQUEST[x:{"q":"say \"hi]\" \\","r":"\\\"}"}]`,
		outcome{
			Segments: []string{"", ""},
			Requests: []req{{Name: "x", Args: `{"q":"say \"hi]\" \\","r":"\\\"}"}`, Raw: `SPECIALIST_REQUEST[x:{"q":"say \"hi]\" \\","r":"\\\"}"}]`}},
		},
	},
	{
		"whitespace around name and colon",
		"SPECIALIST_REQUEST[ web_search \n: \t{\"query\": \"x\"} ]",
		outcome{
			Segments: []string{"", ""},
			Requests: []req{{Name: "web_search", Args: `{"query": "x"}`, Raw: "SPECIALIST_REQUEST[ web_search \n: \t{\"query\": \"x\"} ]"}},
		},
	},
	{
		"no arguments",
		"SPECIALIST_REQUEST[media]",
		outcome{Segments: []string{"", ""}, Requests: []req{{Name: "media", Args: "{}", Raw: "SPECIALIST_REQUEST[media]"}}},
	},
	{
		"two markers",
		`a SPECIALIST_REQUEST[media:{}] b SPECIALIST_REQUEST[ocr:{"image_url":"u"}] c`,
		outcome{
			Segments: []string{"a ", " b ", " c"},
			Requests: []req{
				{Name: "media", Args: "{}", Raw: "SPECIALIST_REQUEST[media:{}]"},
				{Name: "ocr", Args: `{"image_url":"u"}`, Raw: `SPECIALIST_REQUEST[ocr:{"image_url":"u"}]`},
			},
		},
	},
	{"false start", "A SPECIAL offer: SPECIALIST_REQUESTS are rare.", outcome{Segments: []string{"A SPECIAL offer: SPECIALIST_REQUESTS are rare."}}},
	{"lone prefix at end", "Ask SPEC", outcome{Segments: []string{"Ask SPEC"}}},
	{"prefix without bracket at end", "SPECIALIST_REQUEST", outcome{Segments: []string{"SPECIALIST_REQUEST"}}},
	{
		"unterminated marker is not shown",
		`Sure: SPECIALIST_REQUEST[web_search:{"query":"x`,
		outcome{
			Segments: []string{"Sure: ", ""},
			Requests: []req{{Name: "web_search", Raw: `SPECIALIST_REQUEST[web_search:{"query":"x`, Err: errUnter}},
		},
	},
	{
		"invalid JSON inside balanced braces",
		`SPECIALIST_REQUEST[web_search:{query: x}] after`,
		outcome{
			Segments: []string{"", " after"},
			Requests: []req{{Name: "web_search", Raw: `SPECIALIST_REQUEST[web_search:{query: x}]`, Err: errJSON}},
		},
	},
	{
		"missing closing brace ends at the bracket",
		`SPECIALIST_REQUEST[web_search:{"query":"x"] after`,
		outcome{
			Segments: []string{"", " after"},
			Requests: []req{{Name: "web_search", Raw: `SPECIALIST_REQUEST[web_search:{"query":"x"]`, Err: errJSON}},
		},
	},
	{
		"arguments that are not an object",
		`SPECIALIST_REQUEST[web_search:"x"]`,
		outcome{
			Segments: []string{"", `"x"]`},
			Requests: []req{{Name: "web_search", Raw: `SPECIALIST_REQUEST[web_search:`, Err: "malformed specialist request: the arguments must be a JSON object"}},
		},
	},
	{
		"bad name then a real marker",
		`SPECIALIST_REQUEST[web search SPECIALIST_REQUEST[media:{}]`,
		outcome{
			Segments: []string{"", "search ", ""},
			Requests: []req{
				{Name: "web", Raw: "SPECIALIST_REQUEST[web ", Err: "malformed specialist request: expected ':' after the specialist name"},
				{Name: "media", Args: "{}", Raw: "SPECIALIST_REQUEST[media:{}]"},
			},
		},
	},
	{
		"non-ASCII text around a marker",
		"Grüße 🎵 SPECIALIST_REQUEST[media:{\"q\":\"é]\"}] fin",
		outcome{
			Segments: []string{"Grüße 🎵 ", " fin"},
			Requests: []req{{Name: "media", Args: `{"q":"é]"}`, Raw: `SPECIALIST_REQUEST[media:{"q":"é]"}]`}},
		},
	},
}

func TestParserWholeInput(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := run([]string{tc.in}); !equal(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestParserSplits feeds every case split at every position into two and
// into three chunks, and one byte at a time: the outcome must not change.
func TestParserSplits(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(chunks []string) {
				t.Helper()
				if got := run(chunks); !equal(got, tc.want) {
					t.Fatalf("chunks %q:\ngot  %+v\nwant %+v", chunks, got, tc.want)
				}
			}
			check(strings.Split(tc.in, ""))
			for i := 0; i <= len(tc.in); i++ {
				check([]string{tc.in[:i], tc.in[i:]})
				for j := i; j <= len(tc.in); j++ {
					check([]string{tc.in[:i], tc.in[i:j], tc.in[j:]})
				}
			}
		})
	}
}

// TestParserHoldsBack checks what is emitted when, which is what the user
// sees while the answer streams.
func TestParserHoldsBack(t *testing.T) {
	p := NewParser()
	steps := []struct{ feed, want string }{
		{"Hello SPEC", "Hello "},
		{"IAL", ""},
		{" offer", "SPECIAL offer"},
		{" SPECIALIST_REQ", " "},
		{"UEST[web", ""},
	}
	for _, s := range steps {
		if got, r := p.Feed(s.feed); got != s.want || r != nil {
			t.Fatalf("Feed(%q) = %q, %v; want %q, nil", s.feed, got, r, s.want)
		}
	}
	got, r := p.Feed(`_search:{"query":"x"}] and more`)
	if got != "" || r == nil || r.Name != "web_search" || r.Err != nil {
		t.Fatalf("completing Feed = %q, %+v", got, r)
	}
	if rest := p.Rest(); rest != " and more" {
		t.Errorf("Rest() = %q, want %q", rest, " and more")
	}
}

func TestParserTooLong(t *testing.T) {
	p := NewParser()
	_, r := p.Feed(`SPECIALIST_REQUEST[x:{"q":"` + strings.Repeat("a", maxLen))
	if r == nil || r.Err != ErrTooLong || len(r.Raw) != maxLen {
		t.Fatalf("got %+v, want ErrTooLong with %d bytes of Raw", r, maxLen)
	}
}
