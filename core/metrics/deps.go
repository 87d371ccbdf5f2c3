package metrics

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

// Wrap replaces core's LLM, embedder and store with decorators that time
// and count their calls; cmd/ada gives it to openApp (runEnv.deps' way).
func (m *Metrics) Wrap(d *core.Deps) {
	if d.LLM != nil {
		d.LLM = &llm{LLM: d.LLM, m: m, backend: backendLabel(d.LLM.Backend())}
		// The series exist, at zero, before the first call.
		backend := backendLabel(d.LLM.Backend())
		for _, format := range []string{"text", "json"} {
			m.llmRequests.WithLabelValues(backend, format)
		}
		m.llmErrors.WithLabelValues(backend, "upstream")
	}
	if d.Embedder != nil {
		backend := backendLabel(d.Embedder.Name())
		d.Embedder = &embedder{Embedder: d.Embedder, m: m, backend: backend}
		m.embedErrors.WithLabelValues(backend)
	}
	if d.Store != nil {
		d.Store = &store{Store: d.Store, m: m}
	}
	d.Jobs = jobs{m}
}

// llm times and counts the calls to the model.
type llm struct {
	core.LLM
	m       *Metrics
	backend string
}

func (l *llm) Chat(ctx context.Context, req core.LLMRequest, emit func(core.LLMEvent) error) error {
	format := "text"
	if len(req.Format) > 0 {
		format = "json"
	}
	in := 0
	for _, msg := range req.Messages {
		in += utf8.RuneCountInString(msg.Content)
	}
	start := time.Now()
	out, first := 0, true
	var usage *core.Usage
	err := l.LLM.Chat(ctx, req, func(ev core.LLMEvent) error {
		if ev.Kind == core.LLMUsage {
			usage = &ev.Usage
			return emit(ev)
		}
		if first {
			first = false
			l.m.llmTTFT.WithLabelValues(l.backend).Observe(time.Since(start).Seconds())
		}
		out += utf8.RuneCountInString(ev.Text)
		return emit(ev)
	})
	l.m.llmRequests.WithLabelValues(l.backend, format).Inc()
	l.m.llmDuration.WithLabelValues(l.backend, format).Observe(time.Since(start).Seconds())
	if usage != nil {
		l.m.llmTokens.WithLabelValues(l.backend, "in").Add(float64(usage.PromptTokens))
		l.m.llmTokens.WithLabelValues(l.backend, "out").Add(float64(usage.CompletionTokens))
	} else {
		l.m.llmTokens.WithLabelValues(l.backend, "in").Add(float64(core.EstimateTokens(in)))
		l.m.llmTokens.WithLabelValues(l.backend, "out").Add(float64(core.EstimateTokens(out)))
	}
	if err != nil {
		l.m.llmErrors.WithLabelValues(l.backend, kindLabel(err)).Inc()
	}
	l.up(err)
	return err
}

// Ping is the LLM's check (at start, and for healthz and readyz); its
// outcome sets ada_llm_up as a call's does.
func (l *llm) Ping(ctx context.Context) error {
	err := l.LLM.Ping(ctx)
	l.up(err)
	return err
}

// up sets ada_llm_up from a call's outcome. A call that was canceled (the
// client went away, the request's time ran out) says nothing of the LLM.
func (l *llm) up(err error) {
	switch {
	case err == nil:
		l.m.llmUp.WithLabelValues(l.backend).Set(1)
	case core.KindOf(err) != core.KindCanceled:
		l.m.llmUp.WithLabelValues(l.backend).Set(0)
	}
}

// embedder times and counts the calls to the embedder.
type embedder struct {
	core.Embedder
	m       *Metrics
	backend string
}

func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	vs, err := e.Embedder.Embed(ctx, texts)
	e.m.embedRequests.WithLabelValues(e.backend).Inc()
	e.m.embedDuration.WithLabelValues(e.backend).Observe(time.Since(start).Seconds())
	e.m.embedTexts.WithLabelValues(e.backend).Add(float64(len(texts)))
	if err != nil {
		e.m.embedErrors.WithLabelValues(e.backend).Inc()
	}
	return vs, err
}

// store times the store's reads (the retrieval stages: a vector or keyword
// search, a listing, by document type) and its writes.
type store struct {
	core.Store
	m *Metrics
}

func (s *store) read(method string, t core.DocType, start time.Time, err error) {
	s.m.retrieval.WithLabelValues(method, docTypeLabel(t)).Observe(time.Since(start).Seconds())
	if err != nil && core.KindOf(err) != core.KindNotFound {
		s.m.storeErrors.WithLabelValues(method).Inc()
	}
}

func (s *store) write(op string, start time.Time, err error) {
	s.m.storeWrites.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil && core.KindOf(err) != core.KindNotFound {
		s.m.storeErrors.WithLabelValues(op).Inc()
	}
}

func (s *store) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	start := time.Now()
	hits, err := s.Store.Search(ctx, q)
	s.read("vector", q.Type, start, err)
	return hits, err
}

func (s *store) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	start := time.Now()
	hits, err := s.Store.KeywordSearch(ctx, q)
	s.read("keyword", q.Type, start, err)
	return hits, err
}

func (s *store) List(ctx context.Context, f core.Filter, limit int) ([]core.Document, error) {
	start := time.Now()
	docs, err := s.Store.List(ctx, f, limit)
	s.read("list", f.Type, start, err)
	return docs, err
}

func (s *store) Get(ctx context.Context, id string) (core.Document, error) {
	start := time.Now()
	d, err := s.Store.Get(ctx, id)
	s.read("get", "", start, err)
	return d, err
}

func (s *store) Put(ctx context.Context, docs ...core.Document) error {
	start := time.Now()
	err := s.Store.Put(ctx, docs...)
	s.write("put", start, err)
	return err
}

func (s *store) Delete(ctx context.Context, id string, t core.DocType) error {
	start := time.Now()
	err := s.Store.Delete(ctx, id, t)
	s.write("delete", start, err)
	return err
}

func (s *store) DeleteWhere(ctx context.Context, f core.Filter) (core.Deleted, error) {
	start := time.Now()
	gone, err := s.Store.DeleteWhere(ctx, f)
	s.write("delete_where", start, err)
	return gone, err
}

func (s *store) Replace(ctx context.Context, f core.Filter, docs ...core.Document) error {
	start := time.Now()
	err := s.Store.Replace(ctx, f, docs...)
	s.write("replace", start, err)
	return err
}

func (s *store) Apply(ctx context.Context, c core.Change) (core.Deleted, error) {
	start := time.Now()
	gone, err := s.Store.Apply(ctx, c)
	s.write("apply", start, err)
	return gone, err
}
