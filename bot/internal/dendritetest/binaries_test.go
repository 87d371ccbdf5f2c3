package dendritetest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestMissingBinaries pins the no-hidden-skip rule: without binaries a local
// run skips with instructions, a CI run fails.
func TestMissingBinaries(t *testing.T) {
	for _, tc := range []struct {
		ci       string
		wantSkip bool
	}{
		{ci: "", wantSkip: true},
		{ci: "true", wantSkip: false},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv(binDirEnv, t.TempDir()) // exists, but holds no binaries
			t.Setenv("CI", tc.ci)

			rec := &recordingTB{TB: t}
			done := make(chan struct{})
			go func() { // Skipf/Fatalf end this goroutine via runtime.Goexit
				defer close(done)
				requireBinaries(rec)
			}()
			<-done

			switch {
			case tc.wantSkip && !strings.Contains(rec.skipped, "dendrite not built: run make dendrite"):
				t.Errorf("want skip mentioning make dendrite, got skip %q, fatal %q", rec.skipped, rec.fatal)
			case !tc.wantSkip && rec.fatal == "":
				t.Errorf("want failure under CI, got skip %q", rec.skipped)
			}
		})
	}
}

// recordingTB captures Skipf/Fatalf instead of ending the real test.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
