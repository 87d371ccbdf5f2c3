package bot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSaveRecoveryKey: the key goes to a file only the service user can
// read, in a directory only it can enter, and an earlier key file is never
// overwritten.
func TestSaveRecoveryKey(t *testing.T) {
	dataDir := t.TempDir()
	first, err := saveRecoveryKey(dataDir, "EsTc first key")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dataDir, "crypto", "recovery-key"); first != want {
		t.Errorf("key written to %s, want %s", first, want)
	}
	second, err := saveRecoveryKey(dataDir, "EsTc second key")
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("the second key overwrote the first")
	}
	for path, key := range map[string]string{first: "EsTc first key", second: "EsTc second key"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != key+"\n" {
			t.Errorf("%s holds %q (%v), want %q", path, got, err, key)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", path, st.Mode().Perm(), err)
		}
	}
	if st, err := os.Stat(filepath.Join(dataDir, "crypto")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("crypto dir: mode %v (%v), want 0700", st.Mode().Perm(), err)
	}
	if _, err := saveRecoveryKey("", "k"); err == nil {
		t.Error("without DATA_DIR the key must not be written anywhere")
	}
}
