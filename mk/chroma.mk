# A real Chroma server, for the Chroma backend's tests (make test: the
# storage conformance suite in storage/chroma, the replica test in cmd/ada)
# and the side-by-side search benchmark (make bench). Chroma 1.0's server ships in the npm
# package's native bindings; newer bindings than 1.0.5 need a newer glibc
# than Debian 12's, so both versions are pinned.
#
#   make chroma   install (or keep) it in $(CHROMA_DIR)
#
# Tests and the bench find the launcher at $(CHROMA_BIN) (ADA_CHROMA_BIN
# overrides it; storagetest.StartChroma).

_chroma_saved_default_goal := $(.DEFAULT_GOAL)

CHROMA_REPO_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
CHROMA_DIR := $(CHROMA_REPO_ROOT)/.cache/chroma
CHROMA_BIN := $(CHROMA_DIR)/node_modules/.bin/chroma
CHROMA_PACKAGES := chromadb@3.0.6 chromadb-js-bindings-linux-x64-gnu@1.0.5

.PHONY: chroma
chroma: $(CHROMA_BIN)

# A file target: installed once, kept until .cache is removed.
$(CHROMA_BIN):
	@command -v npm >/dev/null || { echo "chroma: npm is needed (Debian: apt-get install npm)"; exit 1; }
	mkdir -p $(CHROMA_DIR)
	cd $(CHROMA_DIR) && [ -f package.json ] || echo '{"name":"ada-bench-chroma","private":true}' > $(CHROMA_DIR)/package.json
	cd $(CHROMA_DIR) && npm install --no-audit --no-fund --save-exact $(CHROMA_PACKAGES)
	@test -x $(CHROMA_BIN) || { echo "chroma: $(CHROMA_BIN) missing after npm install"; exit 1; }

.DEFAULT_GOAL := $(_chroma_saved_default_goal)
