package core

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Options are the behaviour settings core needs; cmd fills them from config.
type Options struct {
	// Models are the models a chat request may name besides the LLM
	// client's own (ROOM_MODELS); a request naming another is refused.
	Models []string

	RAGEnabled    bool
	EnablePersona bool
	EnableFAQ     bool
	EnableMemory  bool
	EnableTurn    bool
	EnableSummary bool

	TurnTopK, FAQTopK, MemoryTopK, SummaryTopK int
	// RecallTopK is how many earlier turns and summaries of the conversation,
	// beyond the recent window, are recalled by relevance (each turn with
	// its neighbours).
	RecallTopK int
	// ContextBudget bounds a prompt, in estimated tokens: recalled context,
	// memories and FAQs are added by relevance while they fit; 0 = no bound.
	ContextBudget int
	// SearchMode is how searchRelevant ranks: SearchHybrid (keyword and
	// vector fused), SearchVector or SearchKeyword.
	SearchMode string
	// RelevanceFloor keeps what is unrelated to the prompt out of the chat's
	// context: memories, FAQs and recalled context below it never enter.
	RelevanceFloor float64

	SimWeight        float64
	ImportanceWeight float64
	RecencyBonus     float64
	RecencyHalfLife  time.Duration

	SummaryEveryN int

	// AutoMemory extracts durable facts from each stored exchange.
	AutoMemory bool
	// MemoryDedup is the similarity from which a new memory refreshes an
	// existing one of its scope instead of adding a copy.
	MemoryDedup float64
	// BackgroundWorkers run summaries and extractions (one at a time per
	// conversation).
	BackgroundWorkers int

	AIName   string
	UserName string

	SpecialistsEnabled bool
	SpecialistMaxTurns int
	SpecialistTimeout  time.Duration
}

// DefaultOptions are the documented defaults of SPEC.md and DECISIONS.md.
func DefaultOptions() Options {
	return Options{
		RAGEnabled: true, EnablePersona: true, EnableFAQ: true, EnableMemory: true, EnableTurn: true, EnableSummary: true,
		TurnTopK: 4, FAQTopK: 2, MemoryTopK: 3, SummaryTopK: 2, RecallTopK: 8, ContextBudget: DefaultContextBudget, RelevanceFloor: DefaultRelevanceFloor, SearchMode: SearchHybrid,
		SimWeight: 0.5, ImportanceWeight: 0.5, RecencyBonus: 0.1, RecencyHalfLife: 7 * 24 * time.Hour,
		SummaryEveryN: 8, AutoMemory: true, MemoryDedup: 0.95, BackgroundWorkers: 2,
		AIName: "Ada", UserName: "User", Models: []string{},
		SpecialistsEnabled: true, SpecialistMaxTurns: 5, SpecialistTimeout: 30 * time.Second,
	}
}

// Deps are the adapters core runs on.
type Deps struct {
	Store    Store
	Embedder Embedder
	LLM      LLM
	Logger   *slog.Logger
	// Specialists is the registry built in cmd; nil means none.
	Specialists *Registry
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Jobs is told about background jobs; nil means no one.
	Jobs JobObserver
	// Forgotten is told what was deleted (forget_listener.go); nil means no one.
	Forgotten ForgetListener
}

// Service is Ada's core. Both the HTTP API and the Matrix bridge call it.
type Service struct {
	store    Store
	embedder Embedder
	llm      LLM
	log      *slog.Logger
	now      func() time.Time
	opts     Options

	persona     persona
	specialists *Registry

	// bg runs summaries and memory extractions.
	bg *jobQueue
	// memoryWrites serialises deduplicating memory writes.
	memoryWrites sync.Mutex
	// forgot is told what was deleted; nil means no one.
	forgot ForgetListener
	// thinkingWarned is set once the log has said that the model cannot think.
	thinkingWarned atomic.Bool
}

// New builds the core service.
func New(deps Deps, opts Options) *Service {
	now := deps.Now
	if now == nil {
		now = time.Now
	}
	log := deps.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg := deps.Specialists
	if reg == nil {
		reg = &Registry{}
	}
	bg := newJobQueue(max(opts.BackgroundWorkers, 1), log)
	if deps.Jobs != nil {
		bg.obs = deps.Jobs
	}
	return &Service{store: deps.Store, embedder: deps.Embedder, llm: deps.LLM, log: log, now: now, opts: opts,
		specialists: reg, bg: bg, forgot: deps.Forgotten}
}

// Options returns the settings the service runs with.
func (s *Service) Options() Options { return s.opts }

// Close stops background work and waits for it.
func (s *Service) Close() { s.bg.close() }

// Shutdown lets the background work already started or queued (summaries,
// memory extractions, cascades) finish until ctx ends, refusing new work,
// then closes. What is cancelled is made again later where it can be: a
// conversation's next turn makes the summary it lacks.
func (s *Service) Shutdown(ctx context.Context) { s.bg.finish(ctx) }

// Wait blocks until background work started so far has finished (tests and
// graceful shutdown use it).
func (s *Service) Wait() { s.bg.wait() }

func (s *Service) requireRAG() error {
	if !s.opts.RAGEnabled {
		return Errorf(KindUnavailable, "RAG is disabled (RAG_ENABLED=false)")
	}
	return nil
}

// embedOne embeds a single text, mapping failures to a clear error.
func (s *Service) embedOne(ctx context.Context, text string) ([]float32, error) {
	vs, err := s.embedder.Embed(ctx, []string{text})
	if err != nil {
		if KindOf(err) != KindInternal {
			return nil, err
		}
		return nil, Wrap(KindUpstream, err, "embedding with %s failed", s.embedder.Name())
	}
	if len(vs) != 1 || len(vs[0]) != Dim {
		return nil, Errorf(KindUpstream, "embedder %s returned a vector of the wrong size", s.embedder.Name())
	}
	return vs[0], nil
}
