package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// The LoCoMo benchmark's JSON: an array of samples, each one long
// conversation between two speakers in numbered sessions, with questions
// whose evidence is annotated as dialogue ids ("D3:12" = session 3, turn 12).

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type locomoQA struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"` // any JSON type; not used
	Evidence json.RawMessage `json:"evidence"`
	Category int             `json:"category"`
}

// evalSample is one sample ready to ingest and ask.
type evalSample struct {
	ID    string
	Turns []core.ImportedTurn
	// DiaIDs[i] is the normalised dialogue id of Turns[i].
	DiaIDs    []string
	Questions []evalQuestion
}

// askedAt is when the questions are asked: at the end of the conversation
// (its last turn), so that a question's relative times ("last week") mean
// what they meant to the speakers then, not to whoever runs the
// evaluation.
func (s evalSample) askedAt() time.Time {
	if len(s.Turns) == 0 {
		return time.Time{}
	}
	return s.Turns[len(s.Turns)-1].Time
}

// evalQuestion is one question to ask, with its known evidence turns.
type evalQuestion struct {
	Text     string
	Category int
	Evidence []string // normalised dialogue ids, each naming a turn
}

// loadStats counts what loading dropped or repaired, for the warnings.
type loadStats struct {
	Turns           int
	SkippedCategory int // category 5 or outside 1..5
	SkippedNoEvid   int // no evidence id that names a turn
	UnknownIDs      []string
	BadDates        int
}

// loadLoCoMo reads a LoCoMo file into samples.
func loadLoCoMo(path string) ([]evalSample, loadStats, error) {
	var st loadStats
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, st, err
	}
	var raw []locomoSample
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, st, fmt.Errorf("%s is not a LoCoMo benchmark (a JSON array of samples with conversation and qa): %w", path, err)
	}
	if len(raw) == 0 {
		return nil, st, fmt.Errorf("%s holds no samples", path)
	}
	samples := make([]evalSample, 0, len(raw))
	for i, r := range raw {
		s, err := r.toSample(&st)
		if err != nil {
			return nil, st, fmt.Errorf("%s: sample %d: %w", path, i+1, err)
		}
		if s.ID == "" {
			s.ID = fmt.Sprintf("sample-%d", i+1)
		}
		samples = append(samples, s)
	}
	return samples, st, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// toSample flattens the sessions, in session order, into turns with their
// dates, and keeps the questions of categories 1–4 that have evidence.
func (r locomoSample) toSample(st *loadStats) (evalSample, error) {
	s := evalSample{ID: r.SampleID}
	var speakerB string
	if raw, ok := r.Conversation["speaker_b"]; ok {
		if err := json.Unmarshal(raw, &speakerB); err != nil {
			return s, fmt.Errorf("speaker_b: %w", err)
		}
	}
	keys := sessionKeys(r.Conversation)
	if len(keys) == 0 {
		return s, fmt.Errorf("conversation has no session_N")
	}
	var last time.Time // the previous turn's time
	for _, key := range keys {
		var turns []locomoTurn
		if err := json.Unmarshal(r.Conversation[key], &turns); err != nil {
			return s, fmt.Errorf("%s: %w", key, err)
		}
		var date string
		_ = json.Unmarshal(r.Conversation[key+"_date_time"], &date)
		start, ok := parseSessionTime(date)
		if !ok {
			st.BadDates++
			start = fallbackTime(last)
		}
		for i, t := range turns {
			last = start.Add(time.Duration(i) * time.Second)
			s.Turns = append(s.Turns, t.imported(speakerB, last))
			id, _ := normaliseDiaID(t.DiaID)
			s.DiaIDs = append(s.DiaIDs, id)
		}
	}
	st.Turns += len(s.Turns)
	s.Questions = questionsOf(r.QA, s.DiaIDs, st)
	return s, nil
}

// sessionKeys are the conversation's session_N keys by N (session_10
// after session_2).
func sessionKeys(conv map[string]json.RawMessage) []string {
	type session struct {
		n   int
		key string
	}
	var sessions []session
	for k := range conv {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, session{n, k})
		}
	}
	slices.SortFunc(sessions, func(a, b session) int { return a.n - b.n })
	keys := make([]string, len(sessions))
	for i, s := range sessions {
		keys[i] = s.key
	}
	return keys
}

// imported is the turn as Ada stores it: speaker_b is the assistant, the
// speaker is the turn's (as the bridge gives a member's display name), and
// a shared photo is described.
func (t locomoTurn) imported(speakerB string, at time.Time) core.ImportedTurn {
	role := "user"
	if t.Speaker == speakerB {
		role = "assistant"
	}
	text := t.Text
	if c := strings.TrimSpace(t.BlipCaption); c != "" {
		text += " [shares a photo: " + c + "]"
	}
	return core.ImportedTurn{Role: role, Text: text, Speaker: t.Speaker, Time: at}
}

// fallbackTime follows the previous turn when a session's date is missing
// or unreadable, so the order of the conversation survives.
func fallbackTime(last time.Time) time.Time {
	if last.IsZero() {
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return last.Add(time.Hour)
}

// sessionLayouts are the date formats seen in LoCoMo-like files; values are
// lower-cased first, which month names tolerate and "pm" needs
// ("1:56 pm on 8 May, 2023" → "1:56 pm on 8 may, 2023").
var sessionLayouts = []string{
	"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 pm on 2 January 2006",
	"3:04 pm on January 2, 2006", "3:04pm on 2 January, 2006", "15:04 on 2 January, 2006",
	"2 January, 2006", "2 January 2006", "January 2, 2006",
	time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02",
}

// parseSessionTime reads a session's date-time in any known layout, as UTC.
func parseSessionTime(s string) (time.Time, bool) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return time.Time{}, false
	}
	for _, v := range []string{strings.ToLower(s), s} { // s for RFC 3339's "T"
		for _, layout := range sessionLayouts {
			if t, err := time.Parse(layout, v); err == nil {
				return t.UTC(), true
			}
		}
	}
	return time.Time{}, false
}

// questionsOf keeps the rows of categories 1–4 whose evidence names at
// least one turn, with the evidence normalised.
func questionsOf(rows []locomoQA, diaIDs []string, st *loadStats) []evalQuestion {
	known := make(map[string]bool, len(diaIDs))
	for _, id := range diaIDs {
		known[id] = true
	}
	var out []evalQuestion
	for _, row := range rows {
		if row.Category < 1 || row.Category > 4 {
			st.SkippedCategory++
			continue
		}
		var ev []string
		for _, raw := range evidenceStrings(row.Evidence) {
			for _, piece := range strings.FieldsFunc(raw, func(r rune) bool { return r == ';' || r == ',' }) {
				id, ok := normaliseDiaID(piece)
				switch {
				case ok && known[id]:
					if !slices.Contains(ev, id) {
						ev = append(ev, id)
					}
				case strings.TrimSpace(piece) != "":
					st.UnknownIDs = append(st.UnknownIDs, strings.TrimSpace(piece))
				}
			}
		}
		if len(ev) == 0 {
			st.SkippedNoEvid++
			continue
		}
		out = append(out, evalQuestion{Text: row.Question, Category: row.Category, Evidence: ev})
	}
	return out
}

// evidenceStrings reads evidence as an array of strings or a single string
// (null and other shapes give none).
func evidenceStrings(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	return nil
}

var diaIDPattern = regexp.MustCompile(`^[dD]:?(\d+):(\d+)$`)

// normaliseDiaID repairs the malformed dialogue ids of the published file:
// "D:11:26" → "D11:26", "D30:05" → "D30:5", stray whitespace.
func normaliseDiaID(s string) (string, bool) {
	s = strings.Join(strings.Fields(s), "")
	m := diaIDPattern.FindStringSubmatch(s)
	if m == nil {
		return s, false
	}
	session, err1 := strconv.Atoi(m[1])
	turn, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return s, false
	}
	return fmt.Sprintf("D%d:%d", session, turn), true
}
