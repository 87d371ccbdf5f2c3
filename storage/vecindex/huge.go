package vecindex

import (
	"sync/atomic"
	"unsafe"
)

// hugeAdvice remembers which of a segment's code arrays was last offered
// huge pages.
//
// A search reads a few thousand codes at random in a large segment's array
// (256 MB at a million rows): with 4 KiB pages nearly every read is a TLB
// miss as well as a cache miss, most of the time of the search's stages
// after the probe (pprof: about 235 ns a row). Backed by 2 MiB pages the
// array needs 128 TLB entries instead of 65,536 (see adviseHuge).
type hugeAdvice struct {
	// addr is the array's address, not a pointer, which would keep an
	// array a growth replaced (256 MB at a million rows) from being freed.
	// It is atomic: searches offer the array under the read lock.
	addr atomic.Uintptr
}

// hugeMinRows is the fewest rows of a segment whose codes are offered
// huge pages: 16 MiB of codes, eight huge pages.
const hugeMinRows = 65_536

// offer advises codes' array once, and reports whether it did: in the
// background, as collapsing its pages takes tens of milliseconds that a
// search should not wait for. An array replaced by a growth is advised
// again on the next search.
func (h *hugeAdvice) offer(codes []Code) bool {
	if len(codes) == 0 {
		return false
	}
	base := &codes[:cap(codes)][0]
	addr := uintptr(unsafe.Pointer(base))
	old := h.addr.Load()
	if old == addr || !h.addr.CompareAndSwap(old, addr) {
		return false // advised, or being advised by another search
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(base)), cap(codes)*int(unsafe.Sizeof(Code{})))
	go adviseHuge(b)
	return true
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
