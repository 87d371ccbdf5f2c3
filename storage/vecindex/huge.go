package vecindex

import (
	"sync"
	"unsafe"
)

// hugeAdvice remembers which code arrays were offered huge pages.
//
// A search reads a few thousand codes at random in a large segment's array
// (256 MB at a million rows): with 4 KiB pages nearly every read is a TLB
// miss as well as a cache miss, most of the time of the search's stages
// after the probe (pprof: about 235 ns a row). Backed by 2 MiB pages the
// array needs 128 TLB entries instead of 65,536 (see adviseHuge).
type hugeAdvice struct {
	mu sync.Mutex
	// done holds the arrays' addresses, not pointers, which would keep an
	// array a growth replaced (256 MB at a million rows) from being freed.
	done map[uintptr]struct{}
}

// hugeMinRows is the fewest rows of a segment whose codes are offered
// huge pages: 16 MiB of codes, eight huge pages.
const hugeMinRows = 65_536

// offer advises codes' array once: in the background, as collapsing its
// pages takes tens of milliseconds that a search should not wait for. An
// array replaced by a growth is advised again on the next search.
func (h *hugeAdvice) offer(codes []Code) {
	if len(codes) == 0 {
		return
	}
	base := &codes[:cap(codes)][0]
	addr := uintptr(unsafe.Pointer(base))
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.done[addr]; ok {
		return
	}
	if h.done == nil {
		h.done = make(map[uintptr]struct{})
	}
	// Growths replace arrays: only the newest few are remembered (an
	// address reused by a later array only leaves it unadvised).
	if len(h.done) > 64 {
		clear(h.done)
	}
	h.done[addr] = struct{}{}
	b := unsafe.Slice((*byte)(unsafe.Pointer(base)), cap(codes)*int(unsafe.Sizeof(Code{})))
	go adviseHuge(b)
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
