package dendritetest

import (
	"os"
	"os/exec"
	"syscall"
)

func configureProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own process group, so cleanup kills anything dendrite may spawn.
		Setpgid: true,
		// t.Cleanup does not run when the test binary dies (e.g. the
		// `go test -timeout` panic); the kernel then kills dendrite for us.
		Pdeathsig: syscall.SIGKILL,
	}
}

func killProcess(p *os.Process) error {
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}
