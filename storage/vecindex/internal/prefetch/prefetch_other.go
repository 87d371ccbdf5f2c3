//go:build !amd64 && !arm64

package prefetch

func line(addr uintptr) {}
