package main

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ada-chat/ada/storage"
)

// TestVersionOutput: `ada version` names the database schema this binary
// writes (so an operator knows before an upgrade whether it migrates), the
// Go toolchain it was built with and the build date Makefile's LDFLAGS give.
func TestVersionOutput(t *testing.T) {
	out, err := runCmd(context.Background(), nil, nil, "version")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ada " + buildVersion(), "database schema " + strconv.Itoa(storage.LatestSchemaVersion()), runtime.Version(), "built "} {
		if !strings.Contains(out, want) {
			t.Errorf("ada version says %q, which lacks %q", out, want)
		}
	}
	if !strings.Contains(buildInfo("2026-11-27T00:00:00Z"), "built 2026-11-27T00:00:00Z") {
		t.Errorf("the build date of the ldflags is not shown: %q", buildInfo("2026-11-27T00:00:00Z"))
	}
}
