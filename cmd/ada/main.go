// Command ada is Ada's one binary: the HTTP API, the Matrix bridge, or both,
// plus admin commands. main only wires the process to run, which tests call
// the same way.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	// The zone database is built in: TIMEZONE and the rooms' `timezone`
	// must mean the same on a host without /usr/share/zoneinfo (containers).
	_ "time/tzdata"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, runEnv{args: os.Args[1:], lookupEnv: os.LookupEnv, stdout: os.Stdout, stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ada:", err)
		os.Exit(1)
	}
}
