package storagetest

import "syscall"

// ProcessCPU is the CPU time the process has used, user and system, in
// nanoseconds (0 where getrusage is missing): the benchmarks report CPU per
// document beside the rate, which a second core can raise.
func ProcessCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
