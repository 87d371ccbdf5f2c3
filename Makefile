# Ada: `make run` to start, `make test` to prove it works.
# Everything the tests need (tesseract, chromium, a Dendrite homeserver) is
# installed or built here, so a fresh Debian machine with Go needs nothing else.

GO        ?= go
BIN       := bin/ada
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -X main.version=$(VERSION) -X main.buildDate=$(BUILD_DATE)
# goolm: mautrix's pure-Go Olm, so end-to-end encryption needs no C library.
# sqlite_fts5: SQLite's full-text index, the keyword half of hybrid search.
export GOFLAGS := -tags=goolm,sqlite_fts5
# The tests must not pick up a developer's .env: they read an empty settings
# file instead (a named file that is missing is an error, so not a made-up path).
export ADA_ENV_FILE ?= /dev/null
TEST_TIMEOUT ?= 14m
# Each fuzz target runs a number of inputs (its third field below), about
# 4 s on 2 quiet cores. A count, not a duration: with a duration, Go before
# 1.27 can fail a run at its deadline with a bare "context deadline exceeded"
# on a loaded machine (go.dev/issue/75804; it failed CI here once).
# FUZZTIME=30s (or 1000000x) overrides it for every target.
FUZZTIME  ?=

.DEFAULT_GOAL := build

.PHONY: build run test test-go fuzz bench lint check deps apt-deps node-deps clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/ada

## run: build and start the API (and the Matrix bridge when configured) on :7000
run: build
	env -u ADA_ENV_FILE ./$(BIN) up

## test: install what the tests need, then run every test with the race detector
test: deps lint test-go fuzz

test-go:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...

## fuzz: short fuzzing runs of the request decoders and the marker parser
FUZZ_TARGETS := ./apiserver/wire:FuzzDecodeChatRequest:100000x ./apiserver/wire:FuzzDecodeMemoryCreate:100000x \
	./apiserver/wire:FuzzDecodeMemoryPatch:100000x ./apiserver:FuzzRoutes:10000x ./core/marker:FuzzParser:150000x
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; budget=$${FUZZTIME:-$${rest#*:}}; \
		if grep -rqs "func $$name(" $$pkg; then \
			echo "fuzz $$pkg $$name ($$budget)"; \
			$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$$budget $$pkg || exit 1; \
		else echo "fuzz target $$name missing in $$pkg"; exit 1; fi; \
	done

## bench: print the benchmark tables (search targets beside a real Chroma
## server, both backends side by side, the scale table at 20k, 100k and 1M
## memories (ADA_BENCH_SCALE_SIZES; its data under TMPDIR, 4.5 GB at 1M),
## vector search, chat overhead, bridge; then the benchmarks behind the
## performance claims in CHANGELOG.md and docs/operators.md: migrate-store's
## fingerprints, the memory search loop, room labels, the quota index, the
## keyword half as the store grows (ADA_BENCH_SIZES, ADA_BENCH_DIR) and as its
## segments are merged, reading
## export lines, and the vector index's inverted file and code scans, and
## the longest write and search while its lists are trained as it grows)
bench: deps chroma
	ADA_CHROMA_BIN=$(CHROMA_BIN) $(GO) test -run '^$$' -bench 'SearchTargets' -benchtime 1x -timeout 30m ./cmd/ada
	ADA_CHROMA_BIN=$(CHROMA_BIN) $(GO) test -run '^$$' -bench 'Backends' -benchtime 1x -timeout 60m ./cmd/ada
	ADA_CHROMA_BIN=$(CHROMA_BIN) $(GO) test -run '^$$' -bench 'ChromaChatRequests' -benchtime 1x -timeout 30m ./cmd/ada
	ADA_CHROMA_BIN=$(CHROMA_BIN) $(GO) test -run '^$$' -bench 'Scale' -benchtime 1x -timeout 120m ./cmd/ada
	ADA_CHROMA_BIN=$(CHROMA_BIN) $(GO) test -run '^$$' -bench 'Reads|Search|TermCacheWritten' -benchtime 10x -timeout 30m ./storage/chroma
	$(GO) run ./cmd/adabench
	$(GO) test -run '^$$' -bench 'ChatService|MemorySearchModes|LoadStreamsAndWrites|MemoryWriteSync|OpenAIOverhead|MetricsOverhead|MCPSearch|ExportImport|ScanSource|MemoryPage' -benchtime 1x ./cmd/ada
	$(GO) test -run '^$$' -bench 'BridgeLatency|BridgeFirstText' -benchtime 1x ./bot
	$(GO) test -run '^$$' -bench 'MemorySearchLoop|MemorySearchHTTPLoop' -benchtime 200x -benchmem ./cmd/ada
	$(GO) test -run '^$$' -bench 'RoomLabels' ./core
	$(GO) test -run '^$$' -bench 'MemberUsageSince|KeywordScale' -benchtime 200x -timeout 30m ./storage
	$(GO) test -run '^$$' -bench 'VectorRecall' -benchtime 100x -timeout 30m ./storage
	$(GO) test -run '^$$' -bench 'Put|KeywordFiltered' -benchtime 100x -benchmem ./storage
	$(GO) test -run '^$$' -bench 'KeywordSegments' -benchtime 2000x ./storage
	$(GO) test -run '^$$' -bench 'ReadDocument|ReadKind' ./storage/jsonl
	$(GO) test -run '^$$' -bench 'TrainLists|Nearest|Quantize|CodeScan|GrowthPause|CosineDistances|HeadKernels' ./storage/vecindex
	$(GO) test -run '^$$' -bench 'Recall' -benchtime 100x ./storage/vecindex
	$(GO) test -run '^$$' -bench 'Find' -benchmem ./core/when

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (gofmt -l . ; echo "gofmt needed"; exit 1)
	$(GO) vet ./...
	@! grep -rn --include='*.go' -e 'slog\.Default()' -e 'log\.Printf' apiserver bot core storage config | grep -v _test.go || (echo "use the injected *slog.Logger"; exit 1)

check: lint test

# chroma: the real Chroma server the Chroma backend's tests run (storage/chroma,
# cmd/ada's replica test); without it they skip locally and fail under CI=true.
deps: apt-deps dendrite node-deps chroma

# The official JavaScript clients the tests run (tools/*/package-lock.json,
# pinned: the OpenAI client, the MCP TypeScript SDK, the MCP conformance
# suite and the reference "everything" MCP server that Ada calls tools on),
# installed with npm ci when their lock file changes.
NODE_CLIENTS := tools/openaiclient tools/mcpclient tools/mcpconformance tools/mcpeverything tools/elementclient
node-deps: $(addsuffix /node_modules/.package-lock.json,$(NODE_CLIENTS))
tools/%/node_modules/.package-lock.json: tools/%/package-lock.json tools/%/package.json
	cd tools/$* && npm ci --no-audit --no-fund

# Debian packages the tests use for real: tesseract for OCR, chromium for /docs,
# nginx for deploy/nginx/ada.conf (Debian 12's "nginx" ships /usr/sbin/nginx),
# systemd's systemd-analyze to verify deploy/systemd/ada.service, node and npm
# to run the OpenAI and MCP JavaScript clients (tools/), espeak-ng and
# opus-tools to make the voice messages of the bridge's voice tests.
APT_PACKAGES := tesseract-ocr tesseract-ocr-eng chromium nginx systemd nodejs npm espeak-ng opus-tools
apt-deps:
	@missing=""; \
	command -v tesseract >/dev/null || missing="$$missing tesseract-ocr tesseract-ocr-eng"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$$missing nginx"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	command -v espeak-ng >/dev/null || missing="$$missing espeak-ng"; \
	command -v opusenc >/dev/null || missing="$$missing opus-tools"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

clean:
	rm -rf bin

include mk/*.mk
