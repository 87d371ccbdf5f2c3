package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

const (
	// extractTimeout bounds one background extraction.
	extractTimeout = 90 * time.Second
	// maxFactsPerExchange bounds what one exchange can add.
	maxFactsPerExchange = 5
	// maxFactChars bounds one extracted fact.
	maxFactChars = 500
	// extractNeighbours is how many existing memories of the scope the model
	// sees, so that it can say which one a correction replaces.
	extractNeighbours = 8
)

// TagAuto marks automatic memories.
const TagAuto = "auto"

// extractionSchema is the structured output asked of the model. OpenAI's
// strict mode needs every property required and no additional ones.
var extractionSchema = json.RawMessage(`{"type":"object","properties":{"facts":{"type":"array","maxItems":5,"items":{"type":"object","properties":{"text":{"type":"string"},"importance":{"type":"integer","minimum":1,"maximum":5},"replaces":{"type":"array","items":{"type":"string"}},"about":{"type":"string"}},"required":["text","importance","replaces","about"],"additionalProperties":false}}},"required":["facts"],"additionalProperties":false}`)

const extractionInstructions = `You extract durable facts worth remembering from one exchange between a user and an assistant: facts about the user or the people they mention, their preferences, plans, decisions, names, numbers, codes and dates. Skip greetings, questions, small talk and anything only true for a moment. Use only what was said in the exchange below.

Write each fact as one short sentence that stands alone and names who it is about (the person writing to the assistant is called %s; never write "the user" or "I"). Give each an importance from 1 (trivia) to 5 (essential). At most %d facts; none is a fine answer.

Existing memories are listed with ids only so that you can tell when a fact corrects or replaces one of them (for example a new address): then put that id in "replaces". Never repeat an existing memory as a new fact unless the exchange states it again.

State times as absolute dates: the exchange's own date is given below, and a time it says relative to it ("yesterday", "next Monday", "in two weeks") is written as the date it means ("Sam starts the new job on 9 March 2026", not "next Monday"). The dates such times mean are listed with the exchange when they are known.

Put in "about" the name of the one person the fact is about, as it is written in the exchange or the conversation (%[1]s for the person writing); "" when it is about no one person.

Answer with JSON only, in this form: {"facts": [{"text": "...", "importance": 3, "replaces": [], "about": "..."}]}`

// extractedFact is one fact of the model's answer.
type extractedFact struct {
	Text       string   `json:"text"`
	Importance int      `json:"importance"`
	Replaces   []string `json:"replaces"`
	// About names the person the fact is about (automemory_subject.go).
	About string `json:"about"`
}

// autoMemoryOn reports whether req's exchange is to be mined for memories.
func (s *Service) autoMemoryOn(req ChatRequest) bool {
	on := s.opts.AutoMemory && s.opts.RAGEnabled && req.Store && s.llm != nil
	if req.AutoMemory != nil {
		on = on && *req.AutoMemory
	}
	return on
}

// maybeExtract queues the extraction of the exchange's facts. It never
// delays the answer; failures are logged.
func (s *Service) maybeExtract(ctx context.Context, req ChatRequest, turns []Document) {
	if !s.autoMemoryOn(req) || len(turns) != 2 {
		return
	}
	s.bg.enqueue(ctx, req.ConversationID, "memory extraction", func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, extractTimeout)
		defer cancel()
		n, err := s.extractMemories(ctx, req, turns[0], turns[1])
		if err != nil {
			s.logger(ctx).Warn("memory extraction failed", "conversation_id", req.ConversationID, "error", err)
			return err
		}
		if n > 0 {
			s.logger(ctx).Debug("memories extracted", "conversation_id", req.ConversationID, "facts", n)
		}
		return nil
	})
}

// extractMemories asks the model for the durable facts of one exchange (its
// user and assistant turns, as stored) and stores them in the request's
// scope: new, refreshed (the same fact again) or replacing (retiring)
// existing ones. Only what the user and the assistant said is shown, never
// the context Ada injected, so recalled memories are not stored again as
// new ones. It returns the facts stored.
func (s *Service) extractMemories(ctx context.Context, req ChatRequest, user, assistant Document) (int, error) {
	scope, entity, err := resolveScope("", req.Entity)
	if err != nil {
		return 0, err
	}
	// In a chat room the speaker is a named member: facts name them, and
	// their user id goes into the memory's metadata.
	name, userID := s.opts.UserName, ""
	if req.Speaker != nil {
		name, userID = req.Speaker.Name, req.Speaker.UserID
	}
	exchange := fmt.Sprintf("%s: %s\n%s: %s", name, user.Text, s.opts.AIName, assistant.Text)
	// The memories nearest to what the user said, by the user turn's own
	// vector (no embedding call): a correction is near the fact it replaces.
	hits, err := s.store.Search(ctx, VectorQuery{Filter: Filter{Type: DocMemory, Scopes: []string{scope}}, Vector: user.Embedding, K: extractNeighbours})
	if err != nil {
		return 0, err
	}
	shown := map[string]Document{}
	var existing strings.Builder
	now := s.now()
	for _, h := range hits {
		if expired(h.Document, now) {
			continue
		}
		alias := fmt.Sprintf("m%d", len(shown)+1)
		shown[alias] = h.Document
		fmt.Fprintf(&existing, "[%s] %s\n", alias, oneLine(h.Text))
	}
	if existing.Len() == 0 {
		existing.WriteString("(none)\n")
	}
	var out strings.Builder
	err = s.llm.Chat(ctx, LLMRequest{Format: extractionSchema, Messages: []Message{
		{Role: "system", Content: fmt.Sprintf(extractionInstructions, name, maxFactsPerExchange)},
		{Role: "user", Content: "Existing memories:\n" + existing.String() + "\n" + exchangeTime(user, assistant, req.Location) + "The exchange:\n" + exchange},
	}}, func(ev LLMEvent) error {
		if ev.Kind == LLMToken {
			out.WriteString(ev.Text)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	facts, err := parseFacts(out.String())
	if err != nil {
		return 0, err
	}
	stored, members := 0, roomMembers(req)
	for _, f := range facts {
		var retire []Document
		for _, alias := range f.Replaces {
			if d, ok := shown[strings.TrimSpace(alias)]; ok {
				retire = append(retire, d)
			}
		}
		doc, err := s.memoryDocument(ctx, MemoryInput{Text: f.Text, Importance: new(f.Importance), Scope: scope, Entity: entity,
			Tags: []string{TagAuto}, ConversationID: req.ConversationID, Source: SourceChat, RoomID: req.RoomID,
			SourceIDs: []string{user.ID, assistant.ID}, UserID: userID, SubjectUserID: subjectOf(f.About, members)})
		if err != nil {
			return stored, err
		}
		if _, _, err := s.saveMemory(ctx, doc, retire, "extracted from the conversation"); err != nil {
			return stored, err
		}
		stored++
	}
	return stored, nil
}

// parseFacts reads the model's answer tolerantly (code fences, text around
// the object) and keeps only well-formed facts: a blank text, an importance
// outside 1 to 5 or an over-long text drops that fact, and at most
// maxFactsPerExchange are kept. An answer with no JSON object is an error.
func parseFacts(answer string) ([]extractedFact, error) {
	obj, ok := firstJSONObject(answer)
	if !ok {
		return nil, fmt.Errorf("the extraction answer holds no JSON object: %.80q", answer)
	}
	var parsed struct {
		Facts []json.RawMessage `json:"facts"`
	}
	if err := json.Unmarshal([]byte(obj), &parsed); err != nil {
		return nil, fmt.Errorf("the extraction answer is not of the asked shape: %w", err)
	}
	var out []extractedFact
	for _, raw := range parsed.Facts {
		var f extractedFact
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		f.Text = oneLine(f.Text)
		if f.Text == "" || len([]rune(f.Text)) > maxFactChars || f.Importance < 1 || f.Importance > 5 {
			continue
		}
		out = append(out, f)
		if len(out) == maxFactsPerExchange {
			break
		}
	}
	return out, nil
}

// firstJSONObject finds the first balanced {...} in s, minding strings, so
// that code fences and text before or after the object are ignored.
func firstJSONObject(s string) (string, bool) {
	for start := strings.IndexByte(s, '{'); start >= 0; {
		depth, inString, escaped := 0, false, false
		for i := start; i < len(s); i++ {
			c := s[i]
			switch {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			case inString:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 && json.Valid([]byte(s[start:i+1])) {
					return s[start : i+1], true
				}
			}
			if depth == 0 && !inString {
				break
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			return "", false
		}
		start += 1 + next
	}
	return "", false
}

// exchangeTime says when the exchange was written, in its time zone (UTC
// when unknown), and the dates its relative times mean (the turns' times,
// resolved when they were stored), so that extracted facts state absolute
// dates.
func exchangeTime(user, assistant Document, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The exchange was written on %s.\n", user.Meta.Timestamp.In(loc).Format("Monday 2 January 2006, 15:04 MST"))
	for _, m := range append(slices.Clone(user.Meta.Times), assistant.Meta.Times...) {
		fmt.Fprintf(&b, "%q means %s.\n", m.Text, spanIn(m.Start, m.End, "Monday 2 January 2006", "from "))
	}
	return b.String()
}
