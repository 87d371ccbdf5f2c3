package core

import (
	"context"
	"errors"
	"fmt"
)

// ErrThinkingUnsupported is in the chain of an LLM error that says the model
// cannot think (Ollama: `"llama3.2" does not support thinking`). LLM adapters
// return it only for requests with Think set, before anything was streamed.
var ErrThinkingUnsupported = errors.New("the model does not support thinking")

// answer runs generate. When the client asked for thinking and the model
// cannot think, it asks again without: the answer matters more than the
// reasoning, so the client gets it with "thinking": null and a note, and the
// operator one log line per process (the note repeats on every reply).
func (s *Service) answer(ctx context.Context, req ChatRequest, msgs []Message, tally *modelTally, emit func(Event) error) (text string, thinking *string, note string, err error) {
	text, th, err := s.generate(ctx, req, msgs, tally, emit)
	if req.IncludeThinking && errors.Is(err, ErrThinkingUnsupported) {
		if s.thinkingWarned.CompareAndSwap(false, true) {
			s.logger(ctx).Warn("the model cannot think: answering include_thinking requests without thinking",
				"backend", s.llm.Backend(), "model", s.llm.Model())
		}
		req.IncludeThinking = false
		text, _, err = s.generate(ctx, req, msgs, tally, emit)
		return text, nil, fmt.Sprintf("include_thinking was ignored: the model %s cannot think", s.llm.Model()), err
	}
	if !req.IncludeThinking {
		return text, nil, "", err
	}
	return text, &th, "", err
}
