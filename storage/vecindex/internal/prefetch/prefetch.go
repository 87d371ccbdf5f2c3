// Package prefetch asks the CPU for a cache line ahead of its use. It is
// apart from vecindex because a package using cgo cannot hold Go
// assembly.
package prefetch

// Line asks the CPU to load the cache line at addr into its caches,
// without waiting for it; addr need not be valid (a prefetch never
// faults). It is a no-op where no assembly implements it.
func Line(addr uintptr) { line(addr) }
