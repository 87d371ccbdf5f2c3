package core

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// PromptSection is one labelled part of the system message.
type PromptSection struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Prompt is exactly what the model gets, plus what was used to build it.
type Prompt struct {
	Messages []Message       `json:"messages"`
	Sections []PromptSection `json:"sections"`
	Used     UsedContext     `json:"used_context"`
}

// Render is the prompt as one text, for /v1/debug/prompt.
func (p Prompt) Render() string {
	var b strings.Builder
	for i, m := range p.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s", m.Role, m.Content)
	}
	return b.String()
}

// assemble is the one place a prompt is built: chat, the stream and
// /v1/debug/prompt all call it, so the debug view is what the model gets.
func (s *Service) assemble(req ChatRequest, r retrieval, now time.Time) Prompt {
	var secs []PromptSection
	add := func(name, text string) {
		if strings.TrimSpace(text) != "" {
			secs = append(secs, PromptSection{Name: name, Text: strings.TrimSpace(text)})
		}
	}
	add("Persona", personaText(r.persona))
	add("Instructions from the client for this conversation", req.Instructions)
	add("Current time", fmt.Sprintf("The current time is %s (UTC), a %s. %s",
		now.UTC().Format(time.RFC3339), now.UTC().Weekday(), s.whoIsTalking(req)))
	add("How to use the context below", contextGuide(r, req))
	add("Specialists", s.specialistsText(req.MCPTools, req.RoomID != ""))
	add("FAQ", faqText(r.faqs))
	add(memoriesHeading(req)+" (saved earlier; may be outdated)", memoriesText(r.memories))
	add("Summaries of earlier parts of this conversation", summariesText(r.summaries))
	add("Recalled from earlier in this conversation", s.recalledText(req, r.labels, r.recalled))
	add("Recent messages in this chat room", roomText(req.ContextMessages))
	add("Messages this one replies to", roomText(req.ReplyChain))
	if req.OCRContext != nil {
		add("Text read from the user's image (OCR)", req.OCRContext.Text)
	}
	var sys strings.Builder
	for i, sec := range secs {
		if i > 0 {
			sys.WriteString("\n\n")
		}
		fmt.Fprintf(&sys, "## %s\n%s", sec.Name, sec.Text)
	}
	msgs := []Message{{Role: "system", Content: sys.String()}}
	for _, t := range r.turns {
		msgs = append(msgs, Message{Role: t.Meta.Role, Content: turnContent(req, r.labels, t)})
	}
	if r.nextTurn == 0 {
		msgs = append(msgs, clientHistory(req.History)...)
	}
	msgs = append(msgs, Message{Role: "user", Content: req.Prompt})
	msgs = append(msgs, req.ToolTurns...)
	used := r.used
	for _, m := range req.ReplyChain {
		used.ReplyChain = append(used.ReplyChain, ContextItem{Text: m.Sender + ": " + m.Text, Timestamp: isoTimeOrEmpty(m.Timestamp),
			Reason: ReasonReplyChain})
	}
	return Prompt{Messages: msgs, Sections: secs, Used: used}
}

// turnContent is an earlier turn as the model reads it. In a chat room
// several members ask in one conversation, so each earlier question is
// named after its speaker, as the room's messages are, with the user id
// where the name is shared (issue 40 items 3 and 6); an API conversation
// has one user, and its turns stay as they were said, unless the client
// named their speaker (ChatRequest.Speaker): then the name leads, as the
// turn was embedded (SpokenText).
func turnContent(req ChatRequest, labels Labels, t Document) string {
	if label, ok := roomSpeaker(req, labels, t); ok {
		return label + ": " + t.Text
	}
	if t.Meta.Role == "user" && t.Meta.Speaker != "" {
		return SpokenText(t.Meta.Speaker, t.Text)
	}
	return t.Text
}

// roomSpeaker is the label of the member who asked turn t in a chat room,
// among req.Members (labels are theirs).
func roomSpeaker(req ChatRequest, labels Labels, t Document) (string, bool) {
	if req.RoomID == "" || t.Meta.Role != "user" || t.Meta.Speaker == "" {
		return "", false
	}
	if t.Meta.UserID == "" {
		return t.Meta.Speaker, true
	}
	return labels.Of(t.Meta.Speaker, t.Meta.UserID), true
}

// whoIsTalking names the speaker: the configured user in an API
// conversation, or the person who wrote the message where several people
// talk and "the user" would be ambiguous: a chat room's member, or the
// speaker an API client names.
func (s *Service) whoIsTalking(req ChatRequest) string {
	if req.Speaker == nil {
		return fmt.Sprintf("The user is called %s; you are %s.", s.opts.UserName, s.opts.AIName)
	}
	who := req.Speaker.Name
	if req.Speaker.UserID != "" && req.Speaker.UserID != who {
		who += " (" + req.Speaker.UserID + ")"
	}
	where := "a chat room with several members"
	if req.RoomID == "" {
		where = "a conversation with several people"
	}
	return fmt.Sprintf("You are %s, in %s. The message you answer is from %s.", s.opts.AIName, where, who)
}

// memoriesHeading says whose memories they are: the user's, a chat
// room's (shared by its members), or those of an API conversation whose
// client names its speakers (several people, no room). The context guide
// names the section by it, so that the model finds the section the guide
// speaks of.
func memoriesHeading(req ChatRequest) string {
	switch {
	case req.RoomID != "":
		return "Memories of this chat room"
	case req.Speaker != nil:
		return "Memories of this conversation"
	}
	return "Memories about the user"
}

// contextGuide tells the model plainly what each part of the context is.
func contextGuide(r retrieval, req ChatRequest) string {
	var parts []string
	if len(r.memories) > 0 {
		parts = append(parts, "\""+memoriesHeading(req)+"\" are facts saved from earlier conversations, with the date they were saved. "+
			"They may be outdated: what the user says now wins over them.")
	}
	if len(r.summaries) > 0 {
		parts = append(parts, "\"Summaries\" condense the newest earlier parts of this conversation, with the turns they cover and their dates.")
	}
	if len(r.recalled) > 0 {
		parts = append(parts, "\"Recalled from earlier\" holds older messages and summaries of this conversation, with their dates, "+
			"chosen because they relate to the user's message.")
	}
	if len(r.turns) > 0 {
		parts = append(parts, "The recent exchange follows as chat messages, oldest first; the last message is the one to answer.")
	}
	if len(req.ContextMessages) > 0 {
		parts = append(parts, "\"Recent messages in this chat room\" show what others said in the room just before.")
	}
	if len(req.ReplyChain) > 0 {
		parts = append(parts, "\"Messages this one replies to\" are the chain of replies the user's message answers, oldest first, "+
			"the last being the one it replies to directly; they may be older than the recent messages. Read the question in their light.")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n")
}

func summariesText(docs []Document) string {
	return bulletDocs(docs, func(d Document) string {
		return fmt.Sprintf("(turns %s, written %s) %s", d.Meta.TurnRange, dateOf(d.Meta.Timestamp), d.Text)
	})
}

// recalledText shows recalled turns and summaries in time order, dated.
func (s *Service) recalledText(req ChatRequest, labels Labels, docs []recalledDoc) string {
	var b strings.Builder
	for _, d := range docs {
		if d.Meta.Type == DocSummary {
			fmt.Fprintf(&b, "- [%s] summary of turns %s: %s\n", d.Meta.Timestamp.UTC().Format("2006-01-02 15:04"), d.Meta.TurnRange, oneLine(d.Text))
			continue
		}
		who, ok := roomSpeaker(req, labels, d.Document)
		if !ok {
			who = s.speaker(d.Document)
		}
		fmt.Fprintf(&b, "- [%s] %s: %s\n", d.Meta.Timestamp.UTC().Format("2006-01-02 15:04"), who, oneLine(d.Text))
	}
	return b.String()
}

func faqText(docs []Document) string {
	return bulletDocs(docs, func(d Document) string { return d.Text })
}

func dateOf(t time.Time) string { return t.UTC().Format("2006-01-02") }

func personaText(sections []PersonaSection) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = s.Text
	}
	return strings.Join(parts, "\n\n")
}

func bulletDocs(docs []Document, line func(Document) string) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString("- " + oneLine(line(d)) + "\n")
	}
	return b.String()
}

func memoriesText(mems []Memory) string {
	var b strings.Builder
	for _, m := range mems {
		scope := ""
		if m.Meta.Scope != ScopeGlobal {
			scope = ", about " + strings.TrimPrefix(m.Meta.Scope, entityScopePrefix)
		}
		fmt.Fprintf(&b, "- %s (importance %d%s, saved %s)\n", oneLine(m.Text), m.Meta.Importance, scope, dateOf(m.Meta.Timestamp))
	}
	return b.String()
}

func roomText(msgs []ContextMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s: %s\n", m.Sender, oneLine(m.Text))
	}
	return b.String()
}

// specialistsText tells the model how to ask for help. Specialists are
// listed in priority order, so HIGH ones come first.
func (s *Service) specialistsText(mcpTools []string, inRoom bool) string {
	offered := s.specialists.offered(mcpTools, inRoom)
	if !s.SpecialistsEnabled() || len(offered) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("You can ask a specialist for help by writing, on its own, " +
		"SPECIALIST_REQUEST[<name>:<json arguments>], where the arguments are one JSON object that " +
		"follows the specialist's schema. " +
		"Stop writing right after the marker: the result will be given to you, then continue your answer. " +
		"Only ask when it helps; never mention the marker syntax to the user.\nAvailable specialists:\n")
	for _, e := range offered {
		fmt.Fprintf(&b, "- %s (priority %s): %s Arguments (JSON Schema): %s\n", e.info.Name, e.info.Priority,
			oneLine(e.info.Description), oneLine(string(e.info.InputSchema)))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// A prompt carries a client's own history as the recent window would: its
// last maxClientHistory messages, newest first up to maxClientHistoryChars.
const (
	maxClientHistory      = 20
	maxClientHistoryChars = 16000
)

// clientHistory is the user and assistant messages of a client's history
// that the prompt carries, oldest first.
func clientHistory(h []Message) []Message {
	var out []Message
	chars := 0
	for i := len(h) - 1; i >= 0 && len(out) < maxClientHistory; i-- {
		m := h[i]
		if (m.Role != "user" && m.Role != "assistant") || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if chars += len([]rune(m.Content)); chars > maxClientHistoryChars {
			break
		}
		out = append(out, m)
	}
	slices.Reverse(out)
	return out
}

// isoTimeOrEmpty is isoTime, or "" for the zero time.
func isoTimeOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return isoTime(t)
}
