//go:build !linux

package vecindex

// adviseHuge does nothing where transparent huge pages are not Linux's.
func adviseHuge([]byte) {}
