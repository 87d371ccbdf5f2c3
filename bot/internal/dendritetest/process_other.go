//go:build !linux

package dendritetest

import (
	"os"
	"os/exec"
)

// Outside Linux there is no parent-death signal; dendrite does not fork, so
// killing the process itself is enough.
func configureProcess(*exec.Cmd) {}

func killProcess(p *os.Process) error { return p.Kill() }
