//go:build amd64 || arm64

package prefetch

// line is in prefetch_$GOARCH.s.
//
//go:noescape
func line(addr uintptr)
