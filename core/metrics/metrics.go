// Package metrics exports what Ada does as Prometheus series: HTTP requests,
// chats, calls to the LLM, the embedder and the store, background jobs, the
// Matrix bridge, and the store's size read at scrape time.
//
// Every collector is registered on the registry cmd/ada gives New; nothing
// is registered on the global default registry. Names follow Prometheus'
// conventions: an ada_ prefix, base units (_seconds, _bytes), _total on
// counters. Labels come from closed sets only (a route pattern, a status
// class, a kind, a backend), never from a user, room, conversation or
// document id: the functions that make label values (routeLabel, kindLabel,
// docTypeLabel...) map anything unexpected to "other".
package metrics

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ada-chat/ada/core"
)

// fastBuckets are the bounds of fast latencies (store, embedder, HTTP), from
// 0.5 ms; slowBuckets of slow ones (LLM, chats), up to 5 minutes, the
// longest request allowed.
func fastBuckets() []float64 {
	return []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
}

// httpBuckets cover both: a memory read and a chat that runs for minutes.
func httpBuckets() []float64 { return append(fastBuckets(), 30, 60, 120, 300) }

func slowBuckets() []float64 {
	return []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}
}

// Metrics holds Ada's collectors. Its methods are safe for concurrent use.
// A nil *Metrics is not valid; cmd/ada leaves the hooks out instead when
// METRICS_ENABLED=false.
type Metrics struct {
	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	streamsActive prometheus.Gauge

	chats        *prometheus.CounterVec
	chatTTFT     *prometheus.HistogramVec
	chatDuration *prometheus.HistogramVec

	llmRequests *prometheus.CounterVec
	llmDuration *prometheus.HistogramVec
	llmTTFT     *prometheus.HistogramVec
	llmErrors   *prometheus.CounterVec
	llmTokens   *prometheus.CounterVec
	llmUp       *prometheus.GaugeVec

	embedRequests *prometheus.CounterVec
	embedDuration *prometheus.HistogramVec
	embedErrors   *prometheus.CounterVec
	embedTexts    *prometheus.CounterVec

	retrieval     *prometheus.HistogramVec
	storeWrites   *prometheus.HistogramVec
	storeErrors   *prometheus.CounterVec
	jobsQueued    *prometheus.CounterVec
	jobsFinished  *prometheus.CounterVec
	jobsPending   *prometheus.GaugeVec
	botEvents     *prometheus.CounterVec
	botAnswers    *prometheus.CounterVec
	botReaction   prometheus.Observer
	botDecryption prometheus.Counter
	botCascades   *prometheus.CounterVec
}

// New registers Ada's collectors, with the Go runtime's and the process's,
// on reg. version is exported as ada_build_info.
func New(reg prometheus.Registerer, version string) *Metrics {
	f := factory{reg}
	m := &Metrics{
		httpRequests:  f.counter("ada_http_requests_total", "HTTP requests answered, by route pattern, method and status class.", "route", "method", "status_class"),
		httpDuration:  f.histogram("ada_http_request_duration_seconds", "Time from a request's start to its end (a stream's end for streams), by route pattern, method and status class.", httpBuckets(), "route", "method", "status_class"),
		streamsActive: f.gauge("ada_chat_streams_active", "Chat streams (Server-Sent Events) open now."),

		chats:        f.counter("ada_chats_total", "Chats answered or failed, by source (api, bot) and result (ok or the error kind).", "source", "result"),
		chatTTFT:     f.histogram("ada_chat_time_to_first_token_seconds", "Time from a chat's start (retrieval included) to the first token of the answer, by source.", slowBuckets(), "source"),
		chatDuration: f.histogram("ada_chat_duration_seconds", "Time from a chat's start to its end, by source and result.", slowBuckets(), "source", "result"),

		llmRequests: f.counter("ada_llm_requests_total", "Calls to the LLM, by backend and format (text, or json for structured output).", "backend", "format"),
		llmDuration: f.histogram("ada_llm_request_duration_seconds", "Duration of an LLM call, by backend and format.", slowBuckets(), "backend", "format"),
		llmTTFT:     f.histogram("ada_llm_time_to_first_token_seconds", "Time from an LLM call to its first streamed piece (thinking or answer), by backend.", slowBuckets(), "backend"),
		llmErrors:   f.counter("ada_llm_errors_total", "Failed LLM calls, by backend and error kind.", "backend", "kind"),
		llmUp:       f.gaugeVec("ada_llm_up", "1 if the LLM's last call or check (the start's, /v1/healthz's, /v1/readyz's) succeeded, 0 if it failed (a call the client gave up on does not count), by backend. Set from the start's check on; absent in a process that does not use the LLM (ada bot with ADA_API_URL).", "backend"),
		llmTokens:   f.counter("ada_llm_tokens_total", "Tokens sent to (in) and received from (out) the LLM, as the backend counts them (Ollama; an OpenAI-compatible server that reports usage in its stream), else estimated at four characters a token.", "backend", "direction"),

		embedRequests: f.counter("ada_embedder_requests_total", "Calls to the embedder, by backend.", "backend"),
		embedDuration: f.histogram("ada_embedder_request_duration_seconds", "Duration of an embedder call, by backend.", fastBuckets(), "backend"),
		embedErrors:   f.counter("ada_embedder_errors_total", "Failed embedder calls, by backend.", "backend"),
		embedTexts:    f.counter("ada_embedder_texts_total", "Texts embedded, by backend.", "backend"),

		retrieval:   f.histogram("ada_retrieval_duration_seconds", "Duration of a store read, by method (vector, keyword, list, get) and document type (memory, turn, faq, summary, persona, any).", fastBuckets(), "method", "doc_type"),
		storeWrites: f.histogram("ada_store_write_duration_seconds", "Duration of a store write transaction, by operation.", fastBuckets(), "operation"),
		storeErrors: f.counter("ada_store_errors_total", "Failed store calls, by operation.", "operation"),

		jobsQueued:   f.counter("ada_background_jobs_queued_total", "Background jobs queued, by kind (summary, memory_extraction, summary_rewrite).", "kind"),
		jobsFinished: f.counter("ada_background_jobs_finished_total", "Background jobs finished, by kind and result (done, failed, dropped).", "kind", "result"),
		jobsPending:  f.gaugeVec("ada_background_jobs_pending", "Background jobs queued or running now, by kind.", "kind"),

		botEvents:     f.counter("ada_bot_events_total", "Matrix events the bridge handled, by kind.", "kind"),
		botAnswers:    f.counter("ada_bot_answers_total", "Answers the bridge posted or failed to post, by result (ok, failed).", "result"),
		botReaction:   f.histogram("ada_bot_reaction_seconds", "Time from a message's arrival at the bridge (handed over by the sync loop, decrypted) to the 🧠 reaction on it.", fastBuckets()).WithLabelValues(),
		botDecryption: f.counter("ada_bot_decryption_failures_total", "Encrypted events the bridge could not decrypt.").WithLabelValues(),
		botCascades:   f.counter("ada_bot_redaction_cascades_total", "Redactions that deleted turns and what was learned from them, by result (done, failed, abandoned: retried too often and left pending).", "result"),
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	info := f.gaugeVec("ada_build_info", "Always 1; the version label is the running build.", "version")
	info.WithLabelValues(version).Set(1)
	// Series that would otherwise appear only after their first event are
	// made at zero, so dashboards and alerts see them from the start.
	for _, r := range []string{"done", "failed", "dropped"} {
		for _, k := range jobKinds() {
			m.jobsFinished.WithLabelValues(k, r)
		}
	}
	for _, k := range jobKinds() {
		m.jobsQueued.WithLabelValues(k)
		m.jobsPending.WithLabelValues(k)
	}
	for _, r := range []string{"ok", "failed"} {
		m.botAnswers.WithLabelValues(r)
	}
	for _, k := range botEventKinds() {
		m.botEvents.WithLabelValues(k)
	}
	for _, op := range []string{"vector", "keyword", "list", "get", "put", "apply", "replace", "delete", "delete_where"} {
		m.storeErrors.WithLabelValues(op)
	}
	m.botCascades.WithLabelValues("done")
	m.botCascades.WithLabelValues("failed")
	m.botCascades.WithLabelValues("abandoned")
	return m
}

// jobKinds are the background jobs core runs, as labels.
func jobKinds() []string { return []string{"summary", "memory_extraction", "summary_rewrite"} }

type factory struct{ reg prometheus.Registerer }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

// Request counts an HTTP request that ended (apiserver.Metrics). route is
// the route's pattern, never its path; "unmatched" for a path no route fits.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	class := statusClass(status)
	method = methodLabel(method)
	m.httpRequests.WithLabelValues(route, method, class).Inc()
	m.httpDuration.WithLabelValues(route, method, class).Observe(d.Seconds())
}

// Stream marks a chat stream that opened; the function it returns marks its
// end (apiserver.Metrics).
func (m *Metrics) Stream() (end func()) {
	m.streamsActive.Inc()
	return m.streamsActive.Dec
}

func statusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

func methodLabel(method string) string {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return method
	}
	return "other"
}

// kindLabel names an error's kind (core.ErrorKind.String); "ok" for no error.
func kindLabel(err error) string {
	if err == nil {
		return "ok"
	}
	return core.KindOf(err).String()
}

// backendLabel is the backend part of a name such as "ollama:nomic-embed-text".
func backendLabel(name string) string {
	b, _, _ := strings.Cut(name, ":")
	switch b {
	case "hash", "ollama", "openai":
		return b
	}
	return "other"
}

func docTypeLabel(t core.DocType) string {
	switch t {
	case "":
		return "any"
	case core.DocPersona, core.DocFAQ, core.DocMemory, core.DocTurn, core.DocSummary:
		return string(t)
	}
	return "other"
}
