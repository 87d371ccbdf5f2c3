package main

import (
	"context"
	"strings"
	"sync"

	"github.com/ada-chat/ada/core"
)

// scriptedLLM plays the assistant's side of a recorded conversation for
// `ada eval chat`: asked to answer the prompt it expects next, it answers
// with the recorded reply. It recognises a chat by its last user message,
// never by words of the system prompt, so a change to the prompt cannot
// break the replay. Any other call (a summary, a memory extraction) gets a
// neutral answer that adds no evidence: the evaluation measures recall of
// what was said, not what a model made of it.
type scriptedLLM struct {
	mu     sync.Mutex
	prompt string // the prompt expected next
	reply  string
	chats  int // chats answered from the script
	others int // summaries and extractions
}

// expect sets the next exchange of the script.
func (m *scriptedLLM) expect(prompt, reply string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompt, m.reply = prompt, reply
}

// neutralSummary is every summary's text: no word of the conversation.
const neutralSummary = "The conversation went on."

func (m *scriptedLLM) Chat(ctx context.Context, req core.LLMRequest, emit func(core.LLMEvent) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	var last string
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
		last = req.Messages[n-1].Content
	}
	answer := neutralSummary
	switch {
	case req.Format != nil:
		answer = `{"facts": []}` // an extraction: no facts
		m.others++
	case m.prompt != "" && strings.TrimSpace(last) == m.prompt:
		answer = m.reply
		m.chats++
	default:
		m.others++
	}
	m.mu.Unlock()
	return emit(core.LLMEvent{Kind: core.LLMToken, Text: answer})
}

func (m *scriptedLLM) Backend() string                { return "script" }
func (m *scriptedLLM) Model() string                  { return "recorded-conversation" }
func (m *scriptedLLM) Ping(ctx context.Context) error { return nil }
