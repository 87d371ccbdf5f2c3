package vecindex

import (
	"runtime"
	"testing"
	"unsafe"
)

// adviseHuge is given arrays of any size and alignment (a segment's codes
// are wherever Go put them): it must advise only whole huge pages within
// them, and never slice outside them.
func TestAdviseHugeBounds(t *testing.T) {
	buf := make([]byte, 3*hugePage+123)
	for _, b := range [][]byte{buf[:0], buf[:1], buf[5:hugePage], buf[7:], buf[hugePage-1 : 2*hugePage+1], buf} {
		adviseHuge(b)
	}
}

// offer advises an array once, however often a search offers it, and
// again once a growth replaced it.
func TestHugeOfferOnce(t *testing.T) {
	var h hugeAdvice
	codes := make([]Code, 4, 8)
	if !h.offer(codes) || h.offer(codes[:2]) {
		t.Fatal("an array was not advised exactly once")
	}
	grown := append(codes[:cap(codes)], Code{})
	if unsafe.SliceData(grown) == unsafe.SliceData(codes) || !h.offer(grown) || h.offer(grown) {
		t.Fatal("a grown array was not advised exactly once")
	}
	if h.offer(nil) {
		t.Fatal("an empty array was advised")
	}
}

// What offer remembers does not keep an array alive: a growth's old array
// (256 MB at a million rows) must be freed.
func TestHugeOfferFrees(t *testing.T) {
	var h hugeAdvice
	defer runtime.KeepAlive(&h) // h remembers the array until the end
	freed := make(chan struct{})
	func() {
		codes := make([]Code, 4)
		runtime.AddCleanup(&codes[0], func(struct{}) { close(freed) }, struct{}{})
		h.offer(codes)
	}()
	for range 100 {
		runtime.GC()
		select {
		case <-freed:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Fatal("an offered array was not freed")
}
