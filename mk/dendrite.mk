# Dendrite homeserver binaries for the bot's integration tests
# (bot/internal/dendritetest).
#
# Dendrite is AGPL, so it lives in its own nested module (tools/dendrite) and
# is only ever built into standalone executables here; it never enters the
# github.com/ada-chat/ada module graph.
#
#   make dendrite   build (or refresh) the binaries into $(DENDRITE_BIN_DIR)
#
# The binaries are file targets: they are rebuilt only when missing or when
# tools/dendrite/go.mod or go.sum change (the first build takes a few minutes,
# later ones are no-ops). The tests look in the same directory by default;
# ADA_DENDRITE_BIN_DIR overrides it.

# Remember the default goal so that including this fragment never makes
# `dendrite` the target of a bare `make`.
_dendrite_saved_default_goal := $(.DEFAULT_GOAL)

GO ?= go

# Resolved from this file's location (not the caller's cwd) so the paths stay
# correct with `make -C` / `make -f`.
DENDRITE_REPO_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
DENDRITE_MODULE_DIR := $(DENDRITE_REPO_ROOT)/tools/dendrite
DENDRITE_BIN_DIR := $(DENDRITE_REPO_ROOT)/.cache/dendrite/bin
DENDRITE_CMDS := dendrite generate-keys generate-config create-account
DENDRITE_BINS := $(addprefix $(DENDRITE_BIN_DIR)/,$(DENDRITE_CMDS))

.PHONY: dendrite dendrite-clean
dendrite: $(DENDRITE_BINS)

# cgo is required: Dendrite's SQLite driver is mattn/go-sqlite3. GOFLAGS is
# reset because the main Makefile exports Ada's own build tags (goolm), which
# mean nothing to Dendrite, and VCS stamping would only record Ada's git state.
# The final touch guarantees the binary is newer than go.mod even if the go
# tool decides the existing file is already up to date and leaves its mtime.
$(DENDRITE_BIN_DIR)/%: $(DENDRITE_MODULE_DIR)/go.mod $(DENDRITE_MODULE_DIR)/go.sum
	@mkdir -p $(DENDRITE_BIN_DIR)
	cd $(DENDRITE_MODULE_DIR) && CGO_ENABLED=1 GOFLAGS=-buildvcs=false $(GO) build -o $@ github.com/element-hq/dendrite/cmd/$*
	@touch $@

dendrite-clean:
	rm -rf $(DENDRITE_BIN_DIR)

.DEFAULT_GOAL := $(_dendrite_saved_default_goal)
