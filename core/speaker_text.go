package core

// A turn's speaker is one of its words: "what does Sam do?" should find
// Sam's own "I go climbing on Sundays", though it never says "Sam". So a
// turn with a speaker (a room member's display name at the time, the name
// an API client or an import gives) is embedded as "Name: text", the way
// the prompt and the transcripts show it. Its stored text stays what was
// said, so the model, the API and the export never see the name twice.
// The name is data, never an instruction, and never decides identity
// (DECISIONS.md, "Identities, walls and forgetting"): it only moves the
// turn's vector towards questions that name it.

// SpokenText is the text a turn of speaker is embedded by: "speaker: text",
// or text alone without a speaker. Storing a turn and `ada reindex` both
// use it, so that a reindexed turn keeps its speaker.
func SpokenText(speaker, text string) string {
	speaker = oneLine(speaker)
	if speaker == "" {
		return text
	}
	return speaker + ": " + text
}

// spokenPrompt reports whether a chat's prompt is stored with another
// embedding than retrieval searched by: it is when the request names its
// speaker.
func spokenPrompt(req ChatRequest) bool { return speakerName(req) != "" }

// speakerName is the name of the request's speaker, or "".
func speakerName(req ChatRequest) string {
	if req.Speaker == nil {
		return ""
	}
	return oneLine(req.Speaker.Name)
}

// EmbeddedText is the text d's vector is made from: a turn's with its
// speaker (SpokenText), any other document's own. Imports that embed
// documents again use it.
func EmbeddedText(d Document) string {
	if d.Meta.Type != DocTurn {
		return d.Text
	}
	return SpokenText(d.Meta.Speaker, d.Text)
}
