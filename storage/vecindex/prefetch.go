package vecindex

import (
	"unsafe"

	"github.com/ada-chat/ada/storage/vecindex/internal/prefetch"
)

// The later stages of a search read a few thousand codes at random in a
// large segment's array, a cache miss each. Asking for the rows a few
// places ahead while the current one is compared keeps many misses in
// flight at once, where the loop alone waits for each in turn.
const prefetchAhead = 16

// prefetchCode asks for the cache line of c at byte offset off.
func prefetchCode(c *Code, off uintptr) { prefetch.Line(uintptr(unsafe.Pointer(c)) + off) }
