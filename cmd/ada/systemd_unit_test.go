package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnitVerifies runs systemd's own checker over
// deploy/systemd/ada.service. verify also wants ExecStart's binary to exist,
// so the copy it checks names this test's executable instead of
// /usr/local/bin/ada; every other line is the shipped file's. verify exits 0
// on unknown keys and bad values, printing them, so any output fails.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		msg := "systemd-analyze is not installed (Debian: apt-get install systemd, or `make apt-deps`); skipping the unit check"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	unit, err := os.ReadFile(filepath.Join("..", "..", "deploy", "systemd", "ada.service"))
	if err != nil {
		t.Fatal(err)
	}
	const shipped = "ExecStart=/usr/local/bin/ada up"
	if !strings.Contains(string(unit), "\n"+shipped+"\n") {
		t.Fatalf("the unit no longer starts %q; update this test with it", shipped)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "ada.service")
	text := strings.Replace(string(unit), shipped, "ExecStart="+self+" up", 1)
	if err := os.WriteFile(copyPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", copyPath).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// The install steps start the settings from the shipped env file.
	if !strings.Contains(text, "deploy/ada.env /etc/ada/ada.env") {
		t.Errorf("the unit's install steps do not install deploy/ada.env")
	}
	for _, want := range []string{"NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "StateDirectory=ada", "LimitNOFILE=", "Restart=on-failure"} {
		if !strings.Contains(text, "\n"+want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
}
