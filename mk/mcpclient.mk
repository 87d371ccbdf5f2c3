# mcpclient: the official MCP TypeScript SDK client (tools/mcpclient, pinned
# in its package-lock.json) that cmd/ada's MCP acceptance test runs against
# the real program. npm ci installs exactly the locked versions; it runs
# again only when the lock file changes. Node and npm come from apt-deps.
MCPCLIENT_DIR := tools/mcpclient
MCPCLIENT_STAMP := $(MCPCLIENT_DIR)/node_modules/.package-lock.json

.PHONY: mcpclient
mcpclient: $(MCPCLIENT_STAMP)

$(MCPCLIENT_STAMP): $(MCPCLIENT_DIR)/package-lock.json
	cd $(MCPCLIENT_DIR) && npm ci --no-audit --no-fund
	@touch $@
