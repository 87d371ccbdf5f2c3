package vecindex

import "golang.org/x/sys/unix"

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks Linux to back the whole huge pages within b with
// transparent huge pages (MADV_HUGEPAGE, for memory not yet touched) and to
// collapse those already touched now (MADV_COLLAPSE, Linux 6.1). Either may
// be refused (transparent huge pages off, an older kernel, no free huge
// page): the pages stay as they were, which only costs speed.
func adviseHuge(b []byte) {
	start := (-int(uintptrOf(b))) & (hugePage - 1)
	end := start + (len(b)-start)/hugePage*hugePage
	if start >= len(b) || end <= start {
		return
	}
	_ = unix.Madvise(b[start:end], unix.MADV_HUGEPAGE)
	_ = unix.Madvise(b[start:end], unix.MADV_COLLAPSE)
}
