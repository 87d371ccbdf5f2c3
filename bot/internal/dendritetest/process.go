package dendritetest

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// process is a started dendrite whose exit is observed by a goroutine, so
// both startup (did it die?) and cleanup (is it gone?) can wait on it.
type process struct {
	cmd     *exec.Cmd
	log     *os.File
	exited  chan struct{}
	waitErr error // valid once exited is closed
}

// startProcess starts cmd with stdout and stderr going straight to log: an
// *os.File is handed to the child as-is, so no copying goroutine can keep
// Wait from returning.
func startProcess(cmd *exec.Cmd, log *os.File) (*process, error) {
	cmd.Stdout, cmd.Stderr = log, log
	configureProcess(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &process{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop kills the process (group) and waits for it. SIGKILL rather than a
// graceful shutdown: all state is in a temp dir that is about to be deleted.
func (p *process) stop() error {
	defer p.log.Close()
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := killProcess(p.cmd.Process); err != nil {
		return fmt.Errorf("kill dendrite (pid %d): %w", p.cmd.Process.Pid, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopTimeout):
		return fmt.Errorf("dendrite (pid %d) still running %s after SIGKILL", p.cmd.Process.Pid, stopTimeout)
	}
}
