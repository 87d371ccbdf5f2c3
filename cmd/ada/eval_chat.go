package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// chatSetting is one way the questions are asked: the defaults, or with a
// request's recall_k.
type chatSetting struct {
	Name    string
	RecallK *int // nil: the setting (RAG_RECALL_TOP_K)
}

// chatResult is what one setting scored over every sample: the share of a
// question's evidence lines that are in the prompt the chat assembles.
type chatResult struct {
	Setting   string
	Share     map[int]float64 // summed per category (0 = overall)
	Questions map[int]int
	// PromptChars is the length of each question's whole prompt, as the
	// model gets it (every message, the system message included).
	PromptChars []int
	Latencies   []time.Duration // building each prompt, retrieval included
}

func (r *chatResult) Mean(c int) float64 {
	if r.Questions[c] == 0 {
		return 0
	}
	return r.Share[c] / float64(r.Questions[c])
}

// exchange is one user prompt and the recorded reply to it.
type exchange struct {
	prompt, reply       string
	userTime, replyTime time.Time
	// speaker is who says the prompt: the chat request names them, as the
	// bridge names a room member (their words are stored and embedded as
	// theirs, core.SpokenText).
	speaker string
}

// exchangesOf pairs the sample's lines into exchanges: the user's lines up
// to the assistant's, then the assistant's lines up to the user's next. A
// conversation that opens with the assistant gets a greeting as its first
// prompt, so that no line is left out. The user's speaker is named by the
// request; the assistant's lines are Ada's answers, which say whose they
// are ("Mel: ...", core.SpokenText), as Ada has no other name for them.
func exchangesOf(turns []core.ImportedTurn) []exchange {
	var out []exchange
	var user, reply []string
	var ex exchange
	flush := func() {
		if len(reply) == 0 {
			return
		}
		if len(user) == 0 {
			user = []string{"Hello."}
		}
		ex.prompt, ex.reply = strings.Join(user, "\n"), strings.Join(reply, "\n")
		out = append(out, ex)
		user, reply, ex = nil, nil, exchange{}
	}
	for _, t := range turns {
		if t.Role == "assistant" {
			if len(reply) == 0 && len(user) == 0 {
				ex.userTime = t.Time
			}
			reply = append(reply, core.SpokenText(t.Speaker, strings.TrimSpace(t.Text)))
			ex.replyTime = t.Time
			continue
		}
		flush()
		if len(user) == 0 {
			ex.userTime, ex.speaker = t.Time, t.Speaker
		}
		user = append(user, strings.TrimSpace(t.Text))
	}
	if len(user) > 0 && len(reply) == 0 {
		// The last prompt got no recorded reply: the model answers it with
		// a neutral line, and the prompt is stored all the same.
		reply = []string{"I see."}
		ex.replyTime = ex.userTime.Add(time.Second)
	}
	flush()
	return out
}

// evalClock is the service's clock during a replay: the time of the line
// being replayed, so that turns, summaries and their dates are the
// conversation's own.
type evalClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *evalClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *evalClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// chatEval replays each sample through core.Chat, then asks its questions
// through the prompt the chat would assemble.
type chatEval struct {
	cfg      *config.Config
	log      *slog.Logger
	settings []chatSetting
	stderr   io.Writer
	embedder string
	replay   time.Duration // replaying every sample
	asking   time.Duration // asking every question in every setting
}

func (e *chatEval) run(ctx context.Context, samples []evalSample) ([]*chatResult, error) {
	dir, err := os.MkdirTemp("", "ada-eval-chat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	hc := &http.Client{}
	emb, err := newEmbedder(e.cfg, hc)
	if err != nil {
		return nil, err
	}
	e.embedder = emb.Name()
	results := make([]*chatResult, len(e.settings))
	for i, s := range e.settings {
		results[i] = &chatResult{Setting: s.Name, Share: map[int]float64{}, Questions: map[int]int{}}
	}
	for i, s := range samples {
		path := filepath.Join(dir, fmt.Sprintf("sample-%d", i+1), "ada.db")
		if err := e.runSample(ctx, path, emb, hc, s, results); err != nil {
			return nil, fmt.Errorf("sample %s: %w", s.ID, err)
		}
	}
	return results, nil
}

func (e *chatEval) runSample(ctx context.Context, path string, emb core.Embedder, hc *http.Client, s evalSample, results []*chatResult) error {
	db, err := storage.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		return err
	}
	reg, _, _, err := newSpecialists(e.cfg, hc)
	if err != nil {
		return err
	}
	clock := &evalClock{}
	llm := &scriptedLLM{}
	svc := core.New(core.Deps{Store: db, Embedder: emb, LLM: llm, Logger: e.log, Specialists: reg, Now: clock.now}, coreOptions(e.cfg))
	defer svc.Close()
	if err := loadKnowledge(ctx, svc, e.cfg); err != nil {
		return err
	}

	convID := core.NewConversationID()
	exchanges := exchangesOf(s.Turns)
	started := time.Now()
	for _, ex := range exchanges {
		clock.set(ex.replyTime)
		llm.expect(ex.prompt, ex.reply)
		req := core.ChatRequest{Prompt: ex.prompt, ConversationID: convID, UserTimestamp: ex.userTime, Store: true}
		if ex.speaker != "" {
			req.Speaker = &core.Speaker{Name: ex.speaker}
		}
		_, err := svc.Chat(ctx, req, func(core.Event) error { return nil })
		if err != nil {
			return fmt.Errorf("replaying: %w", err)
		}
		svc.Wait() // summaries and extractions see the conversation as it was
	}
	replay := time.Since(started)
	e.replay += replay
	if llm.chats != len(exchanges) {
		return fmt.Errorf("replaying: the script answered %d of %d chats: a chat's last message was not its prompt", llm.chats, len(exchanges))
	}
	fmt.Fprintf(e.stderr, "eval: %s: %d lines replayed as %d exchanges in %s, %d questions\n",
		s.ID, len(s.Turns), len(exchanges), replay.Round(time.Millisecond), len(s.Questions))

	// A line is found by what was said: a prompt's lines share one
	// speaker's name, so only its first is shown after the name.
	lines := make(map[string]string, len(s.DiaIDs))
	for i, id := range s.DiaIDs {
		lines[id] = collapseSpace(s.Turns[i].Text)
	}
	clock.set(s.askedAt())
	started = time.Now()
	for i, set := range e.settings {
		for _, q := range s.Questions {
			t0 := time.Now()
			p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: q.Text, ConversationID: convID, RecallK: set.RecallK})
			if err != nil {
				return fmt.Errorf("asking %q: %w", q.Text, err)
			}
			res := results[i]
			res.Latencies = append(res.Latencies, time.Since(t0))
			rendered := collapseSpace(p.Render())
			res.PromptChars = append(res.PromptChars, len([]rune(rendered)))
			found := 0
			for _, ev := range q.Evidence {
				if strings.Contains(rendered, lines[ev]) {
					found++
				}
			}
			share := float64(found) / float64(len(q.Evidence))
			res.Share[q.Category] += share
			res.Share[0] += share
			res.Questions[q.Category]++
			res.Questions[0]++
		}
	}
	e.asking += time.Since(started)
	return nil
}

// collapseSpace makes every run of white space one space, as the prompt
// shows recalled lines on one line.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// medianInt is the median of xs (0 for none).
func medianInt(xs []int) int { return percentileInt(xs, 50) }
