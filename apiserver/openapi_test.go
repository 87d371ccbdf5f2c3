package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/apiserver/mcp"
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/core/metrics"
	"github.com/ada-chat/ada/core/specialists/media"
	"github.com/ada-chat/ada/core/specialists/ocr"
	"github.com/ada-chat/ada/core/specialists/websearch"
	"github.com/ada-chat/ada/storage"
)

// The tests in this file keep openapi.json honest three ways: it must be a
// valid OpenAPI 3.0 document, its operations must be exactly the route table,
// and real responses of a real server must validate against it, with every
// object schema closed (no undocumented field passes).

// loadSpec parses openapi.json and validates it as OpenAPI 3.0, examples and
// defaults included.
func loadSpec(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapiJSON)
	if err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if err := doc.Validate(loader.Context, openapi3.EnableSchemaFormatValidation(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.0 document: %v", err)
	}
	return doc
}

// strictSpec is the document with every object schema that lists its
// properties and says nothing about others closed, so a response field that
// the document does not describe fails validation.
func strictSpec(t testing.TB) *openapi3.T {
	doc := loadSpec(t)
	no := false
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties.Has = &no
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		walk(s.Not)
		for _, l := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, x := range l {
				walk(x)
			}
		}
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
	walkContent := func(c openapi3.Content) {
		for _, mt := range c {
			walk(mt.Schema)
		}
	}
	for _, r := range doc.Components.Responses {
		walkContent(r.Value.Content)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				walkContent(r.Value.Content)
			}
			if op.RequestBody != nil {
				walkContent(op.RequestBody.Value.Content)
			}
		}
	}
	return doc
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadSpec(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") {
		t.Errorf("openapi = %q, want 3.0.x", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers must be [{url: \"/\"}] so \"Try it out\" calls the host that served the document")
	}
	if doc.Components.SecuritySchemes["bearerAuth"] == nil {
		t.Errorf("no bearerAuth security scheme")
	}
	errSchema := doc.Components.Schemas["Error"]
	if errSchema == nil {
		t.Fatal("no Error schema")
	}
	ids := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" || ids[op.OperationID] != "" {
				t.Errorf("%s: operationId %q is empty or not unique", name, op.OperationID)
			}
			ids[op.OperationID] = name
			if op.Summary == "" || op.Description == "" {
				t.Errorf("%s: needs a summary and a description", name)
			}
			// The errors every operation of its kind can give.
			var must []string
			if strings.HasPrefix(path, "/v1/") {
				must = append(must, "405", "500")
			}
			if public := op.Security != nil && len(*op.Security) == 0; !public {
				must = append(must, "401")
			}
			if op.RequestBody != nil {
				must = append(must, "400", "413")
				// A JSON body must be declared JSON (requireJSON).
				if op.RequestBody.Value.Content.Get("application/json") != nil {
					must = append(must, "415")
				}
			}
			for _, code := range must {
				if op.Responses.Value(code) == nil {
					t.Errorf("%s: response %s is not documented", name, code)
				}
			}
			for code, resp := range op.Responses.Map() {
				mt := resp.Value.Content.Get("application/json")
				if code[0] < '4' || mt == nil {
					continue
				}
				// Every error body is {"detail"}, except the health and
				// readiness reports, which keep their shape when they answer 503, and the
				// OpenAI-compatible routes, which speak OpenAI's shape.
				want := errSchema
				if slices.Contains(op.Tags, "openai") {
					want = doc.Components.Schemas["OpenAIError"]
				}
				if mt.Schema.Value != want.Value && name != "GET /v1/healthz" && name != "GET /v1/readyz" {
					t.Errorf("%s: response %s is not the %s schema", name, code, map[bool]string{true: "OpenAIError", false: "Error"}[want != errSchema])
				}
			}
		}
	}
}

// TestOpenAPIMatchesRoutes: every route is documented with its summary and
// its public flag, and every documented operation is a route.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	doc := loadSpec(t)
	documented := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented[method+" "+path] = op
		}
	}
	for _, r := range (&Server{}).routeTable() {
		key := r.method + " " + r.pattern
		op, ok := documented[key]
		if !ok {
			t.Errorf("route %s is not in openapi.json", key)
			continue
		}
		delete(documented, key)
		if op.Summary != r.summary {
			t.Errorf("%s: summary %q in openapi.json, %q in routes.go", key, op.Summary, r.summary)
		}
		public := op.Security != nil && len(*op.Security) == 0
		if public != r.public {
			t.Errorf("%s: public=%v in routes.go, but openapi.json says public=%v (security: [] marks public operations)", key, r.public, public)
		}
		for _, name := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(r.pattern, -1) {
			if p := op.Parameters.GetByInAndName("path", name[1]); p == nil {
				t.Errorf("%s: path parameter %q is not documented", key, name[1])
			}
		}
	}
	for key := range documented {
		t.Errorf("openapi.json documents %s, which is not a route", key)
	}
}

// ---------------------------------------------------------------------------
// Response validation against a real server.

var registerDecoders sync.Once

// rawDecoder hands non-JSON bodies (the event stream, the documentation
// assets) to the validator as strings.
func rawDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

type liveAPI struct {
	t    *testing.T
	doc  *openapi3.T
	url  string
	key  string // API key sent, if any
	db   *storage.DB
	llm  *llmtest.Server
	srv  *Server
	seen map[string]bool // "METHOD pattern" answered 2xx and validated
}

// startLiveAPI runs the real server over a real store in t.TempDir, with the
// scripted fake LLM and the production specialists.
func startLiveAPI(t *testing.T, doc *openapi3.T, cfg Config, opts core.Options, deps Deps) *liveAPI {
	t.Helper()
	registerDecoders.Do(func() {
		for _, ct := range []string{"text/event-stream", "text/html", "text/css", "text/javascript", "image/png", "text/plain"} {
			openapi3filter.RegisterBodyDecoder(ct, rawDecoder)
		}
	})
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.Hash{}
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		t.Fatal(err)
	}
	fake := llmtest.New(t)
	ws, err := websearch.New(websearch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	music, err := media.NewClient(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(ws, media.NewSpecialist(music), ocr.NewSpecialist(ocr.New(ocr.Options{}), ocr.SpecialistOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	svc := core.New(core.Deps{Store: db, Embedder: emb, Specialists: reg,
		LLM: ollama.New(ollama.Options{BaseURL: fake.URL(), Model: llmtest.ModelName})}, opts)
	if err := svc.LoadPersona(ctx, core.PersonaSource{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.SyncSpecialistFAQs(ctx); err != nil {
		t.Fatal(err)
	}
	if deps.Music == nil {
		deps.Music = music
	}
	if deps.Gatherer == nil {
		promReg := prometheus.NewRegistry()
		deps.Metrics, deps.Gatherer = metrics.New(promReg, "test"), promReg
	}
	if deps.MCP == nil {
		deps.MCP = mcp.Handler(svc, mcp.Options{Version: "test"})
	}
	srv := New(svc, deps, cfg, slog.New(slog.DiscardHandler))
	url := serveOnLoopback(t, srv, func() { svc.Close(); db.Close() })
	return &liveAPI{t: t, doc: doc, url: url, key: cfg.APIKey, db: db, llm: fake, srv: srv, seen: map[string]bool{}}
}

// call is one request: the operation (method and path template), the real
// path, an optional body and the status the test expects.
type call struct {
	method, pattern, path string
	body                  []byte
	contentType           string
	noAuth                bool // leave out the API key
	want                  int
	// alsoOK are other statuses that pass, for an operation with several
	// success answers (create or refresh a memory).
	alsoOK []int
}

func jsonCall(method, pattern, path string, body any, want int) call {
	c := call{method: method, pattern: pattern, path: path, want: want}
	switch b := body.(type) {
	case nil:
	case string:
		c.body, c.contentType = []byte(b), "application/json"
	default:
		c.body, _ = json.Marshal(b)
		c.contentType = "application/json"
	}
	return c
}

func (a *liveAPI) newRequest(c call) *http.Request {
	a.t.Helper()
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, a.url+c.path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	if c.pattern == "/mcp" {
		req.Header.Set("Accept", mcpAccept) // MCP's transport refuses a POST without it
	}
	if a.key != "" && !c.noAuth {
		req.Header.Set("Authorization", "Bearer "+a.key)
	}
	return req
}

func (a *liveAPI) route(c call) *routers.Route {
	a.t.Helper()
	item := a.doc.Paths.Value(c.pattern)
	if item == nil || item.GetOperation(c.method) == nil {
		a.t.Fatalf("%s %s is not documented", c.method, c.pattern)
	}
	return &routers.Route{Spec: a.doc, Path: c.pattern, PathItem: item, Method: c.method, Operation: item.GetOperation(c.method)}
}

// do sends the request, checks the status, and validates the request (when
// it is expected to succeed) and the response against the document. It
// returns the response body.
func (a *liveAPI) do(c call) []byte {
	a.t.Helper()
	ctx := context.Background()
	route := a.route(c)
	reqInput := &openapi3filter.RequestValidationInput{
		Request: a.newRequest(c), PathParams: pathParams(c.pattern, c.path), Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	if c.want < 300 {
		if err := openapi3filter.ValidateRequest(ctx, reqInput); err != nil {
			a.t.Errorf("%s %s: the request the test sends does not match openapi.json: %v", c.method, c.path, err)
		}
	}
	req := a.newRequest(c)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: reading the body: %v", c.method, c.path, err)
	}
	if resp.StatusCode != c.want && !slices.Contains(c.alsoOK, resp.StatusCode) {
		a.t.Fatalf("%s %s: status %d, want %d; body %s", c.method, c.path, resp.StatusCode, c.want, wire.Truncate(string(body), 500))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: reqInput.PathParams, Route: route},
		Status:                 resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		a.t.Errorf("%s %s: the %d response does not match openapi.json: %v\nbody: %s", c.method, c.path, resp.StatusCode, err, wire.Truncate(string(body), 2000))
	}
	if resp.StatusCode < 300 {
		a.seen[c.method+" "+c.pattern] = true
	}
	return body
}

// doUnrouted checks a request that no operation covers (unknown path, wrong
// method) against a response of components/responses.
func (a *liveAPI) doUnrouted(method, path, component string, want int) {
	a.t.Helper()
	req := a.newRequest(call{method: method, path: path})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		a.t.Fatalf("%s %s: status %d, want %d", method, path, resp.StatusCode, want)
	}
	spec := a.doc.Components.Responses[component].Value
	for name, h := range spec.Headers {
		if h.Value.Required && resp.Header.Get(name) == "" {
			a.t.Errorf("%s %s: header %s is missing", method, path, name)
		}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		a.t.Fatalf("%s %s: body %q is not JSON", method, path, body)
	}
	if err := spec.Content.Get("application/json").Schema.Value.VisitJSON(v); err != nil {
		a.t.Errorf("%s %s: body does not match components/responses/%s: %v", method, path, component, err)
	}
}

// pathParams extracts the template's parameters from a concrete path.
func pathParams(pattern, path string) map[string]string {
	out := map[string]string{}
	ps, xs := strings.Split(pattern, "/"), strings.Split(strings.SplitN(path, "?", 2)[0], "/")
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && i < len(xs) {
			out[strings.Trim(p, "{}")] = xs[i]
		}
	}
	return out
}

// streamEvents validates every data line of an SSE body against
// StreamEvent and returns the decoded events.
func (a *liveAPI) streamEvents(body []byte) []map[string]any {
	a.t.Helper()
	schema := a.doc.Components.Schemas["StreamEvent"].Value
	var events []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			if line != "" && !strings.HasPrefix(line, ":") {
				a.t.Errorf("stream line %q is neither data, a comment nor blank", line)
			}
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			a.t.Fatalf("stream event %q is not JSON: %v", data, err)
		}
		if err := schema.VisitJSON(v); err != nil {
			a.t.Errorf("stream event does not match StreamEvent: %v\nevent: %s", err, wire.Truncate(data, 2000))
		}
		events = append(events, v.(map[string]any))
	}
	return events
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body %s: %v", wire.Truncate(string(body), 300), err)
	}
	return v
}

func multipartFile(t *testing.T, field, name string, data []byte) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if field != "" {
		fw, err := w.CreateFormFile(field, name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	} else {
		_ = w.WriteField("other", "x")
	}
	_ = w.Close()
	return b.Bytes(), w.FormDataContentType()
}

func TestOpenAPIResponsesMatchServer(t *testing.T) {
	doc := strictSpec(t)
	opts := core.DefaultOptions()
	const ocrMax = 64 << 10
	a := startLiveAPI(t, doc, testConfig(t, func(c *Config) { c.MaxBodyBytes, c.UploadMaxBytes, c.RAGDebug, c.Version = 16<<10, 1<<20, true, "test" }),
		opts, Deps{OCR: ocr.New(ocr.Options{MaxBytes: ocrMax})})

	t.Run("service", func(t *testing.T) {
		a.t = t
		a.do(jsonCall("GET", "/v1/healthz", "/v1/healthz", nil, 200))
		if r := decode[wire.Readiness](t, a.do(call{method: "GET", pattern: "/v1/readyz", path: "/v1/readyz", noAuth: true, want: 200})); !r.Ready || len(r.Failing) != 0 {
			t.Errorf("readyz with every component up = %+v", r)
		}
		info := decode[struct {
			Endpoints []struct{ Method, Path, Summary string }
		}](t, a.do(jsonCall("GET", "/v1/info", "/v1/info", nil, 200)))
		routes := (&Server{}).routeTable()
		if len(info.Endpoints) != len(routes) {
			t.Errorf("info lists %d endpoints, the route table has %d", len(info.Endpoints), len(routes))
		}
		sl := decode[struct{ Count int }](t, a.do(jsonCall("GET", "/v1/specialists", "/v1/specialists", nil, 200)))
		if sl.Count != 3 {
			t.Errorf("specialists count = %d, want 3 (media, ocr, web_search)", sl.Count)
		}
		a.do(jsonCall("GET", "/v1/schema", "/v1/schema", nil, 200))
		a.do(jsonCall("GET", "/v1/schema", "/v1/schema?doc_type=memory", nil, 200))
		a.do(jsonCall("GET", "/v1/schema", "/v1/schema?doc_type=nope", nil, 400))
		a.do(jsonCall("GET", "/v1/media/musicprovider", "/v1/media/musicprovider", nil, 200))
	})

	t.Run("mcp", func(t *testing.T) {
		a.t = t
		a.checkMCP()
	})

	var convID string
	t.Run("memory", func(t *testing.T) {
		a.t = t
		m := decode[core.Memory](t, a.do(jsonCall("POST", "/v1/memory", "/v1/memory",
			map[string]any{"text": "The user prefers green tea in the morning.", "importance": 4, "entity": "drinks", "tags": []string{"preference"}}, 201)))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory",
			map[string]any{"content": "The user's cat is called Miso.", "memory_type": "fact", "conversation_id": "conv-3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b"}, 201))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "Global fact about green tea.", "scope": "global"}, 201))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", `{"text":`, 400))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "x", "importance": 9}, 400))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": strings.Repeat("a", 20<<10)}, 413))

		res := decode[struct {
			Items []core.Memory
			Count int
		}](t, a.do(jsonCall("GET", "/v1/memory", "/v1/memory?search=green+tea&entity=drinks", nil, 200)))
		if res.Count == 0 || res.Items[0].Score == nil {
			t.Errorf("search found nothing scored: %+v", res)
		}
		a.do(jsonCall("GET", "/v1/memory", "/v1/memory?query=cat&limit=5", nil, 200))
		a.do(jsonCall("GET", "/v1/memory", "/v1/memory", nil, 200))
		a.do(jsonCall("GET", "/v1/memory", "/v1/memory?limit=50", nil, 400))

		// Lifecycle: a repeated fact refreshes the memory (200, same id);
		// GET, PATCH and the history follow it; deleting keeps the history.
		if m.Deduplicated == nil || *m.Deduplicated {
			t.Errorf("a new memory must say deduplicated: false, got %v", m.Deduplicated)
		}
		dup := decode[core.Memory](t, a.do(jsonCall("POST", "/v1/memory", "/v1/memory",
			map[string]any{"text": "the user prefers green tea in the morning", "importance": 2, "entity": "drinks"}, 200)))
		if dup.ID != m.ID || dup.Deduplicated == nil || !*dup.Deduplicated || dup.Meta.Importance != 4 {
			t.Errorf("repeated fact: id %s (want %s), deduplicated %v, importance %d (want the higher, 4)", dup.ID, m.ID, dup.Deduplicated, dup.Meta.Importance)
		}
		one := "/v1/memory/" + m.ID
		got := decode[core.Memory](t, a.do(jsonCall("GET", "/v1/memory/{id}", one, nil, 200)))
		if got.ID != m.ID || got.Deduplicated != nil {
			t.Errorf("GET %s = %+v", one, got)
		}
		later := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		patched := decode[core.Memory](t, a.do(jsonCall("PATCH", "/v1/memory/{id}", one,
			map[string]any{"text": "The user prefers jasmine green tea.", "importance": 5, "tags": []string{"tea"}, "expires_at": later.Format(time.RFC3339)}, 200)))
		if patched.Text != "The user prefers jasmine green tea." || patched.Meta.Importance != 5 || patched.Meta.ExpiresAt == nil || !patched.Meta.ExpiresAt.Equal(later) {
			t.Errorf("PATCH answered %+v", patched)
		}
		patched = decode[core.Memory](t, a.do(jsonCall("PATCH", "/v1/memory/{id}", one, `{"expires_at":null}`, 200)))
		if patched.Meta.ExpiresAt != nil || patched.Meta.Importance != 5 {
			t.Errorf("PATCH expires_at null: %+v", patched.Meta)
		}
		for _, bad := range []string{`{"importance":9}`, `{"text":"  "}`, `{"expires_at":"tomorrow"}`, `{"expires_at":5}`,
			`{"expires_at":"2001-01-01T00:00:00Z"}`, `{"tags":"tea"}`, `{}`, `{"txt":"typo"}`} {
			a.do(jsonCall("PATCH", "/v1/memory/{id}", one, bad, 400))
		}
		a.do(jsonCall("PATCH", "/v1/memory/{id}", "/v1/memory/doc-00000000-0000-4000-8000-000000000000", map[string]any{"importance": 2}, 404))
		a.do(jsonCall("GET", "/v1/memory/{id}", "/v1/memory/doc-00000000-0000-4000-8000-000000000000", nil, 404))
		a.do(jsonCall("GET", "/v1/memory/{id}/history", "/v1/memory/doc-00000000-0000-4000-8000-000000000000/history", nil, 404))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "x", "expires_at": "2001-01-01T00:00:00Z"}, 400))
		a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "x", "expires_at": "next week"}, 400))
		exp := decode[core.Memory](t, a.do(jsonCall("POST", "/v1/memory", "/v1/memory",
			map[string]any{"text": "The user is in Lyon this week.", "expires_at": later.Format(time.RFC3339)}, 201)))
		if exp.Meta.ExpiresAt == nil || !exp.Meta.ExpiresAt.Equal(later) {
			t.Errorf("expires_at on create: %v, want %v", exp.Meta.ExpiresAt, later)
		}

		a.do(jsonCall("DELETE", "/v1/memory/{id}", one, nil, 200))
		a.do(jsonCall("DELETE", "/v1/memory/{id}", one, nil, 404))
		a.do(jsonCall("GET", "/v1/memory/{id}", one, nil, 404))
		a.do(jsonCall("PATCH", "/v1/memory/{id}", one, map[string]any{"importance": 2}, 404))
		hist := decode[struct {
			MemoryID string `json:"memory_id"`
			Items    []core.HistoryEntry
			Count    int
		}](t, a.do(jsonCall("GET", "/v1/memory/{id}/history", one+"/history", nil, 200)))
		var events []string
		for _, e := range hist.Items {
			events = append(events, e.Event)
		}
		if hist.MemoryID != m.ID || hist.Count != len(hist.Items) || strings.Join(events, " ") != "create refresh patch patch delete" {
			t.Errorf("history of %s: memory_id %s, count %d, events %q", m.ID, hist.MemoryID, hist.Count, events)
		}

		// Forgetting an entity (issue 26): its memories go, each with a
		// history record of the reason and no text; others stay.
		team := decode[core.Memory](t, a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "Team Kestrel meets on Fridays.", "entity": "kestrel"}, 201)))
		forgot := decode[core.ForgetResult](t, a.do(jsonCall("DELETE", "/v1/memory", "/v1/memory?entity=kestrel&reason=the+team+left", nil, 200)))
		if forgot.Memories != 1 || forgot.Turns != 0 {
			t.Errorf("forgetting the entity: %+v, want its 1 memory", forgot)
		}
		a.do(jsonCall("GET", "/v1/memory/{id}", "/v1/memory/"+team.ID, nil, 404))
		teamHist := decode[struct{ Items []core.HistoryEntry }](t, a.do(jsonCall("GET", "/v1/memory/{id}/history", "/v1/memory/"+team.ID+"/history", nil, 200)))
		if last := teamHist.Items[len(teamHist.Items)-1]; last.Event != core.HistoryDelete || last.Reason != "the team left" || last.Text != "" {
			t.Errorf("the forgotten memory's history should end with its deletion, the reason and no text: %+v", last)
		}
		a.do(jsonCall("GET", "/v1/memory/{id}", "/v1/memory/"+exp.ID, nil, 200))
		a.do(jsonCall("DELETE", "/v1/memory", "/v1/memory", nil, 400))
		a.do(jsonCall("DELETE", "/v1/memory/{id}", "/v1/memory/"+exp.ID+"?reason="+strings.Repeat("x", 201), nil, 400))
		a.do(jsonCall("DELETE", "/v1/memory/{id}", "/v1/memory/"+exp.ID+"?reason=moved+away", nil, 200))
		expHist := decode[struct{ Items []core.HistoryEntry }](t, a.do(jsonCall("GET", "/v1/memory/{id}/history", "/v1/memory/"+exp.ID+"/history", nil, 200)))
		if last := expHist.Items[len(expHist.Items)-1]; last.Reason != "moved away" || last.Text != "" {
			t.Errorf("a deletion's history keeps the reason given, without the text: %+v", last)
		}
	})

	t.Run("chat", func(t *testing.T) {
		a.t = t
		a.llm.Script(llmtest.Reply{Thinking: []string{"The user ", "greets me."}, Tokens: []string{"Hello", "! How can I help?"}})
		res := decode[core.ChatResult](t, a.do(jsonCall("POST", "/v1/chat", "/v1/chat",
			map[string]any{"prompt": "Hello Ada! Do I like green tea?", "include_thinking": true, "entity": "drinks", "save_memory": true,
				"memory_importance": 4, "user_timestamp": "2026-01-02T15:04:05+01:00",
				"context_messages": []map[string]any{{"sender": "@bob:example.org", "text": "hi all", "timestamp": "2026-01-02T15:03:00Z"}},
				"ocr_context":      map[string]any{"text": "menu", "char_count": 4, "line_count": 1, "confidence": 90.5, "image_format": "png", "image_size": []int{10, 10}},
			}, 200)))
		convID = res.ConversationID
		// A second turn retrieves the first: turns, memories and FAQs all
		// appear in used_context.
		body := a.do(jsonCall("POST", "/v1/chat", "/v1/chat",
			map[string]any{"message": "What tea do I like?", "conversation_id": convID, "entity": "drinks", "turns_k": 4, "faq_k": 2, "memory_k": 3}, 200))
		used := decode[core.ChatResult](t, body).UsedContext
		if len(used.Turns) == 0 || len(used.Memories) == 0 {
			t.Errorf("second turn retrieved no turns or memories; the context item shapes were not checked: %s", wire.Truncate(string(body), 500))
		}
		for _, it := range used.Turns {
			if it.Reason != core.ReasonRecent {
				t.Errorf("turn %s of the recent window has reason %q", it.ID, it.Reason)
			}
		}
		a.llm.Script(llmtest.Reply{Tokens: []string{"Noted."}})
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat",
			map[string]any{"prompt": "And coffee?", "conversation_id": convID, "turns_k": 1, "recall_k": 3, "auto_memory": false}, 200))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "Nothing stored", "store": false, "turns_k": 0}, 200))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"conversation_id": convID}, 400))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "x", "turns_k": 99}, 400))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "x", "recall_k": 21}, 400))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "x", "auto_memory": "no"}, 400))
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", "[", 400))
		a.llm.Script(llmtest.Reply{Status: 500, Error: "model exploded"})
		a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "fail please"}, 500))

		a.llm.Script(llmtest.Reply{Thinking: []string{"Hmm."}, Tokens: []string{"Green", " tea."}})
		events := a.streamEvents(a.do(jsonCall("POST", "/v1/chat/stream", "/v1/chat/stream",
			map[string]any{"prompt": "Which tea again?", "conversation_id": convID, "include_thinking": true}, 200)))
		types := eventTypes(events)
		if types != "thinking token token done" {
			t.Errorf("stream event types = %q, want thinking, tokens and done", types)
		}
		a.llm.Script(llmtest.Reply{Tokens: []string{"Hal"}, StreamError: true, Error: "model exploded"})
		events = a.streamEvents(a.do(jsonCall("POST", "/v1/chat/stream", "/v1/chat/stream", map[string]any{"prompt": "fail mid-stream"}, 200)))
		if types := eventTypes(events); !strings.HasSuffix(types, "error") {
			t.Errorf("failed stream event types = %q, want an error event last", types)
		}
		a.do(jsonCall("POST", "/v1/chat/stream", "/v1/chat/stream", map[string]any{"prompt": " "}, 400))

		// A model that cannot think: the answer comes without thinking and
		// with a note, in the reply and in done.
		a.llm.Handle(refuseThinking)
		defer a.llm.Handle(nil)
		res = decode[core.ChatResult](t, a.do(jsonCall("POST", "/v1/chat", "/v1/chat",
			map[string]any{"prompt": "Think about tea", "include_thinking": true, "store": false}, 200)))
		if res.Thinking != nil || !strings.Contains(res.Note, "cannot think") || res.Response == "" {
			t.Errorf("thinking %v, note %q, response %q: want no thinking, a note and an answer", res.Thinking, res.Note, res.Response)
		}
		events = a.streamEvents(a.do(jsonCall("POST", "/v1/chat/stream", "/v1/chat/stream",
			map[string]any{"prompt": "Think about tea", "include_thinking": true, "store": false}, 200)))
		if last := events[len(events)-1]; last["type"] != "done" || !strings.Contains(fmt.Sprint(last["note"]), "cannot think") {
			t.Errorf("the done event of a model that cannot think: %v", last)
		}
	})

	t.Run("conversations", func(t *testing.T) {
		a.t = t
		if convID == "" {
			t.Skip("chat failed")
		}
		list := decode[[]core.Conversation](t, a.do(jsonCall("GET", "/v1/conversations/recent", "/v1/conversations/recent?limit=5", nil, 200)))
		if len(list) == 0 {
			t.Errorf("no recent conversations")
		}
		a.do(jsonCall("GET", "/v1/conversations/recent", "/v1/conversations/recent?limit=0", nil, 400))
		a.do(jsonCall("GET", "/v1/conversations/{conversation_id}", "/v1/conversations/"+convID, nil, 200))
		a.do(jsonCall("GET", "/v1/conversations/{conversation_id}", "/v1/conversations/conv-00000000-0000-4000-8000-000000000000", nil, 404))

		// A room's user turn carries its speaker's name and user id.
		room := decode[core.ChatResult](t, a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "Which tea?", "auto_memory": false,
			"room_id": "!tea:example.org", "speaker": map[string]any{"name": "Sam", "user_id": "@sam:example.org"}}, 200)))
		got := decode[struct{ Turns []core.ConversationTurn }](t, a.do(jsonCall("GET", "/v1/conversations/{conversation_id}", "/v1/conversations/"+room.ConversationID, nil, 200)))
		if len(got.Turns) == 0 || got.Turns[0].Role != "user" || got.Turns[0].Speaker != "Sam" || got.Turns[0].UserID != "@sam:example.org" {
			t.Errorf("a room conversation's turns %+v: want the user turn's speaker Sam, @sam:example.org", got.Turns)
		}

		// A conversation of its own to delete: convID stays for the debug calls.
		gone := decode[core.ChatResult](t, a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "Forget this chat", "auto_memory": false}, 200)))
		path := "/v1/conversations/" + gone.ConversationID
		if len(gone.TurnIDs) != 2 {
			t.Fatalf("turn_ids %v, want the user and assistant turns", gone.TurnIDs)
		}
		// One turn first, then the rest of the conversation.
		const turnRoute = "/v1/conversations/{conversation_id}/turns/{turn_id}"
		a.do(jsonCall("DELETE", turnRoute, path+"/turns/"+gone.TurnIDs[1]+"?reason=test", nil, 200))
		a.do(jsonCall("DELETE", turnRoute, path+"/turns/"+gone.TurnIDs[1], nil, 404))
		a.do(jsonCall("DELETE", turnRoute, path+"/turns/"+gone.TurnIDs[0]+"?reason="+strings.Repeat("x", 201), nil, 400))
		a.do(jsonCall("DELETE", turnRoute, "/v1/conversations/"+convID+"/turns/"+gone.TurnIDs[0], nil, 404))
		del := decode[struct{ Deleted int }](t, a.do(jsonCall("DELETE", "/v1/conversations/{conversation_id}", path, nil, 200)))
		if del.Deleted != 1 {
			t.Errorf("deleted %d documents, want the 1 turn left", del.Deleted)
		}
		a.do(jsonCall("DELETE", "/v1/conversations/{conversation_id}", path, nil, 404))
		a.do(jsonCall("GET", "/v1/conversations/{conversation_id}", path, nil, 404))
		a.do(jsonCall("DELETE", "/v1/conversations/{conversation_id}", "/v1/conversations/nope", nil, 404))
	})

	t.Run("debug", func(t *testing.T) {
		a.t = t
		a.do(jsonCall("GET", "/v1/debug/rag", "/v1/debug/rag", nil, 200))
		a.do(jsonCall("GET", "/v1/debug/rag", "/v1/debug/rag?conversation_id="+convID, nil, 200))
		a.do(jsonCall("GET", "/v1/debug/prompt", "/v1/debug/prompt?prompt=green+tea&entity=drinks&conversation_id="+convID+"&turns_k=2&recall_k=4&include_thinking=true", nil, 200))
		a.do(jsonCall("GET", "/v1/debug/prompt", "/v1/debug/prompt?prompt=x&recall_k=21", nil, 400))
		a.do(jsonCall("GET", "/v1/debug/prompt", "/v1/debug/prompt", nil, 400))
	})

	t.Run("ocr", func(t *testing.T) {
		a.t = t
		body, ct := multipartFile(t, "file", "notes.txt", []byte("not an image"))
		a.do(call{method: "POST", pattern: "/v1/ocr/extract", path: "/v1/ocr/extract", body: body, contentType: ct, want: 400})
		body, ct = multipartFile(t, "", "", nil)
		a.do(call{method: "POST", pattern: "/v1/ocr/extract", path: "/v1/ocr/extract", body: body, contentType: ct, want: 400})
		body, ct = multipartFile(t, "file", "big.png", bytes.Repeat([]byte{0}, ocrMax+1))
		a.do(call{method: "POST", pattern: "/v1/ocr/extract", path: "/v1/ocr/extract", body: body, contentType: ct, want: 413})
		if _, err := exec.LookPath("tesseract"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("tesseract is not installed (make apt-deps installs it)")
			}
			t.Skip("tesseract is not installed; the 200 answer of /v1/ocr/extract is not checked")
		}
		img, err := os.ReadFile("../core/specialists/ocr/testdata/text.webp")
		if err != nil {
			t.Fatal(err)
		}
		body, ct = multipartFile(t, "file", "text.webp", img)
		res := decode[core.OCRResult](t, a.do(call{method: "POST", pattern: "/v1/ocr/extract", path: "/v1/ocr/extract", body: body, contentType: ct, want: 200}))
		if !strings.Contains(strings.ToLower(res.Text), "webp") {
			t.Errorf("OCR text = %q", res.Text)
		}
	})

	t.Run("documentation", func(t *testing.T) {
		a.t = t
		a.do(jsonCall("GET", "/openapi.json", "/openapi.json", nil, 200))
		a.do(jsonCall("GET", "/metrics", "/metrics", nil, 200))
		a.do(jsonCall("GET", "/docs", "/docs", nil, 200))
		for _, asset := range []string{"swagger-ui-bundle.js", "swagger-ui.css", "init.js", "ada.css", "favicon-32x32.png"} {
			a.do(jsonCall("GET", "/docs/{asset}", "/docs/"+asset, nil, 200))
		}
		a.do(jsonCall("GET", "/docs/{asset}", "/docs/nope.js", nil, 404))
	})

	// Every request example of the document works: each body example, and
	// each query-parameter example, gets the operation's success status.
	t.Run("examples", func(t *testing.T) {
		a.t = t
		for _, path := range doc.Paths.InMatchingOrder() {
			item := doc.Paths.Value(path)
			for method, op := range item.Operations() {
				if strings.Contains(path, "{") {
					continue // path examples name ids a fresh server does not have
				}
				codes := successStatuses(op)
				want := codes[0]
				q := url.Values{}
				for _, p := range op.Parameters {
					if p.Value.In == "query" && p.Value.Example != nil {
						q.Set(p.Value.Name, fmt.Sprint(p.Value.Example))
					}
				}
				target := path
				if len(q) > 0 {
					target += "?" + q.Encode()
				}
				if op.RequestBody == nil {
					a.do(jsonCall(method, path, target, nil, want))
					continue
				}
				mt := op.RequestBody.Value.Content.Get("application/json")
				if mt == nil {
					continue // the OCR upload has no example
				}
				names := make([]string, 0, len(mt.Examples))
				for name := range mt.Examples {
					names = append(names, name)
				}
				sort.Strings(names)
				if len(names) == 0 {
					t.Errorf("%s %s: no request body examples", method, path)
				}
				for _, name := range names {
					c := jsonCall(method, path, target, mt.Examples[name].Value.Value, want)
					c.alsoOK = codes[1:] // an example may repeat a fact an earlier subtest stored
					body := a.do(c)
					if strings.HasSuffix(path, "/stream") {
						if types := eventTypes(a.streamEvents(body)); !strings.HasSuffix(types, "done") {
							t.Errorf("%s %s example %s: events %q do not end with done", method, path, name, types)
						}
					}
				}
			}
		}
	})

	t.Run("unrouted", func(t *testing.T) {
		a.t = t
		a.doUnrouted("GET", "/v1/nope", "NotFound", 404)
		a.doUnrouted("PUT", "/v1/memory", "MethodNotAllowed", 405)
		// A literal segment beats a parameter: "recent" is no conversation id.
		a.doUnrouted("DELETE", "/v1/conversations/recent", "MethodNotAllowed", 405)
		// /v1/memory/{id} and /v1/memory/{id}/history differ in length, so
		// each path's Allow lists only its own methods.
		for path, allow := range map[string]string{
			"/v1/memory/doc-00000000-0000-4000-8000-000000000000":         "GET, PATCH, DELETE",
			"/v1/memory/doc-00000000-0000-4000-8000-000000000000/history": "GET",
		} {
			a.doUnrouted("PUT", path, "MethodNotAllowed", 405)
			resp, err := http.DefaultClient.Do(a.newRequest(call{method: "POST", path: path}))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Allow"); resp.StatusCode != 405 || got != allow {
				t.Errorf("POST %s: %d, Allow %q; want 405, Allow %q", path, resp.StatusCode, got, allow)
			}
		}
		a.doUnrouted("GET", "/v1/memory/doc-00000000-0000-4000-8000-000000000000/nope", "NotFound", 404)
	})

	// Every documented operation has had a real success answer validated.
	a.t = t
	var missing []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !a.seen[method+" "+path] {
				missing = append(missing, method+" "+path)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 && !t.Failed() {
		// OCR's success needs tesseract; everything else must be covered.
		if len(missing) != 1 || missing[0] != "POST /v1/ocr/extract" || os.Getenv("CI") == "true" {
			t.Errorf("no validated success response for: %s", strings.Join(missing, ", "))
		}
	}
}

// successStatuses are the operation's documented 2xx statuses, lowest
// first; 200 when it documents none.
func successStatuses(op *openapi3.Operation) []int {
	codes := op.Responses.Map()
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []int
	for _, k := range keys {
		var n int
		if _, err := fmt.Sscanf(k, "%d", &n); err == nil && n >= 200 && n < 300 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []int{200}
	}
	return out
}

func eventTypes(events []map[string]any) string {
	var out []string
	for _, e := range events {
		out = append(out, fmt.Sprint(e["type"]))
	}
	return strings.Join(out, " ")
}

// TestOpenAPIErrorResponsesMatchServer covers the answers of a locked-down
// server: API key required, RAG disabled, debug off, no OCR, store gone.
func TestOpenAPIErrorResponsesMatchServer(t *testing.T) {
	doc := strictSpec(t)
	opts := core.DefaultOptions()
	opts.RAGEnabled = false
	// A ListenBrainz-compatible provider with one listen a minute ago.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		listens := []any{}
		if strings.HasSuffix(r.URL.Path, "/listens") {
			listens = append(listens, map[string]any{"listened_at": time.Now().Add(-time.Minute).Unix(),
				"track_metadata": map[string]any{"artist_name": "Nils Frahm", "track_name": "Says", "release_name": "Spaces"}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"payload": map[string]any{"listens": listens}})
	}))
	defer provider.Close()
	music, err := media.NewClient(media.Options{URL: provider.URL, User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	bridgeErr := "cannot reach the homeserver http://127.0.0.1:9 (MATRIX_HOMESERVER): connection refused"
	matrix := func() MatrixStatus { return MatrixStatus{State: "connecting", Error: &bridgeErr} }
	a := startLiveAPI(t, doc, testConfig(t, func(c *Config) {
		c.APIKey, c.Version, c.RequestTimeout = "s3cret", "test", 2*time.Second
		c.PublicConfig = map[string]any{"LLM_BASE_URL": "http://10.0.0.5:11434"}
	}),
		opts, Deps{Music: music, Matrix: matrix})
	l := decode[core.Listening](t, a.do(jsonCall("GET", "/v1/media/musicprovider", "/v1/media/musicprovider", nil, 200)))
	if l.Status != core.ListeningRecent || l.ListenedAt == nil {
		t.Errorf("listening = %+v, want a recent listen", l)
	}

	// Without the key healthz shows the states, not the configuration.
	open := decode[map[string]any](t, a.do(call{method: "GET", pattern: "/v1/healthz", path: "/v1/healthz", noAuth: true, want: 200}))
	keyed := decode[map[string]any](t, a.do(jsonCall("GET", "/v1/healthz", "/v1/healthz", nil, 200)))
	for _, k := range []string{"config", "python"} {
		if _, ok := open[k]; ok {
			t.Errorf("healthz without the API key shows %q", k)
		}
		if _, ok := keyed[k]; !ok {
			t.Errorf("healthz with the API key lacks %q", k)
		}
	}
	for _, h := range []map[string]any{open, keyed} {
		if m, _ := h["matrix"].(map[string]any); m["state"] != "connecting" || m["error"] != bridgeErr || m["ok"] != false {
			t.Errorf("healthz matrix = %v, want the bridge's state", h["matrix"])
		}
	}
	// healthz stays 200 for a bridge that does not run; readiness fails and says why.
	ready := decode[wire.Readiness](t, a.do(call{method: "GET", pattern: "/v1/readyz", path: "/v1/readyz", noAuth: true, want: 503}))
	if ready.Ready || !strings.Contains(ready.Failing["matrix"], bridgeErr) || len(ready.Failing) != 1 {
		t.Errorf("readyz with the bridge connecting = %+v, want matrix failing with its reason", ready)
	}
	a.do(call{method: "GET", pattern: "/v1/info", path: "/v1/info", noAuth: true, want: 401})
	a.do(call{method: "POST", pattern: "/v1/chat", path: "/v1/chat", body: []byte(`{"prompt":"hi"}`), contentType: "application/json", noAuth: true, want: 401})
	a.do(call{method: "GET", pattern: "/v1/info", path: "/v1/info", want: 200})
	a.do(jsonCall("GET", "/v1/memory", "/v1/memory?search=tea", nil, 503))
	a.do(jsonCall("POST", "/v1/memory", "/v1/memory", map[string]any{"text": "x"}, 503))
	a.do(jsonCall("DELETE", "/v1/memory/{id}", "/v1/memory/doc-28e0b812-3281-4bd7-ab03-521ef1493633", nil, 503))
	a.do(jsonCall("GET", "/v1/memory/{id}", "/v1/memory/doc-28e0b812-3281-4bd7-ab03-521ef1493633", nil, 503))
	a.do(jsonCall("PATCH", "/v1/memory/{id}", "/v1/memory/doc-28e0b812-3281-4bd7-ab03-521ef1493633", map[string]any{"importance": 2}, 503))
	a.do(jsonCall("GET", "/v1/memory/{id}/history", "/v1/memory/doc-28e0b812-3281-4bd7-ab03-521ef1493633/history", nil, 503))
	a.do(jsonCall("GET", "/v1/debug/rag", "/v1/debug/rag", nil, 404))
	a.do(jsonCall("GET", "/v1/debug/prompt", "/v1/debug/prompt?prompt=hi", nil, 404))
	body, ct := multipartFile(t, "file", "x.png", []byte("x"))
	a.do(call{method: "POST", pattern: "/v1/ocr/extract", path: "/v1/ocr/extract", body: body, contentType: ct, want: 503})
	// A JSON body not declared JSON: 415, in each route's shape.
	a.do(call{method: "POST", pattern: "/v1/memory", path: "/v1/memory", body: []byte(`{"text":"x"}`), contentType: "text/plain", want: 415})
	a.do(call{method: "POST", pattern: "/v1/chat/completions", path: "/v1/chat/completions", body: []byte(`{"model":"ada","messages":[]}`), contentType: "text/plain", want: 415})

	// A chat that outlives REQUEST_TIMEOUT_SECONDS is a 504.
	a.llm.Script(llmtest.Reply{Hang: true})
	a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "slow"}, 504))

	// The store goes away: healthz reports it with 503 and the same shape.
	a.db.Close()
	a.do(jsonCall("GET", "/v1/healthz", "/v1/healthz", nil, 503))

	// Five requests without the key (two above) block the address: 429
	// with Retry-After, in each route's documented shape, the key or not.
	for range 3 {
		a.do(call{method: "GET", pattern: "/v1/info", path: "/v1/info", noAuth: true, want: 401})
	}
	a.do(call{method: "GET", pattern: "/v1/info", path: "/v1/info", want: 429})
	a.do(call{method: "GET", pattern: "/v1/models", path: "/v1/models", want: 429})
}

// refuseThinking answers like Ollama with a model that cannot think.
func refuseThinking(r llmtest.Request) (llmtest.Reply, bool) {
	if r.Think != nil && *r.Think {
		return llmtest.Reply{Status: 400, Error: fmt.Sprintf("%q does not support thinking", r.Model)}, true
	}
	return llmtest.Reply{}, false
}

// TestOpenAPIShutdownAnswer: a chat still running when the shutdown's
// grace period ends gets the documented 503 with Retry-After.
func TestOpenAPIShutdownAnswer(t *testing.T) {
	doc := strictSpec(t)
	a := startLiveAPI(t, doc, testConfig(t, func(c *Config) { c.Version = "test" }), core.DefaultOptions(), Deps{})
	a.llm.Script(llmtest.Reply{Hang: true})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if a.llm.WaitRequests(ctx, 1) == nil {
			grace, end := context.WithCancel(ctx)
			end() // the grace period is over: the hung chat is ended
			_ = a.srv.Shutdown(grace)
		}
	}()
	a.do(jsonCall("POST", "/v1/chat", "/v1/chat", map[string]any{"prompt": "still there?"}, 503))
}
