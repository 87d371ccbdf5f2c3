package main

import (
	"context"
	"log/slog"
)

// runBridge runs the Matrix bridge until ctx ends.
// TODO(bot): replaced by the bridge wiring.
func runBridge(ctx context.Context, a *app, log *slog.Logger) error {
	<-ctx.Done()
	return nil
}
